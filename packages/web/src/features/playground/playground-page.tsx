import { TokenStatus } from '@model-relay/contract';
import { Alert, Button, Card, Col, Empty, Form, Input, InputNumber, Row, Select, Slider, Space, Tag, Typography } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { useKeyModels } from '../../api/relay/get-key-models';
import { useAllTokens } from '../../api/tokens/get-tokens';
import { revealTokenKey } from '../../api/tokens/reveal-token-key';
import { renderQuota } from '../../lib/format';
import { useChat, type Turn } from './use-chat';

/** What an answer cost and used, under it. */
function AnswerFooter({ turn }: { turn: Turn }) {
  const state = turn.status === 'streaming' ? '生成中…' : turn.status === 'stopped' ? '已停止' : undefined;
  const cost =
    turn.status === 'streaming'
      ? undefined
      : turn.cost === undefined
        ? '正在查询费用…'
        : turn.cost === null
          ? '未找到本次请求的消费记录（管理员可能关闭了消费日志）'
          : `费用 ${renderQuota(turn.cost.quota)} · 输入 ${turn.cost.prompt} tokens · 输出 ${turn.cost.completion} tokens · 耗时 ${turn.cost.seconds.toFixed(2)} 秒`;
  return (
    <div style={{ fontSize: 12, opacity: 0.7, marginTop: 4 }}>
      {state && <Tag>{state}</Tag>}
      {cost && <span aria-label="本次费用">{cost}</span>}
    </div>
  );
}

/**
 * 操练场 (/playground): chat with a model through the gateway using one of the user's own keys, streamed, with a
 * stop button, a system prompt and the temperature; each answer shows what it was charged (its log row). The
 * key is fetched whole only when picked and kept in memory only.
 */
export default function PlaygroundPage() {
  const tokens = (useAllTokens().data ?? []).filter((t) => t.status === TokenStatus.Enabled);
  const [tokenId, setTokenId] = useState<number | undefined>();
  const [key, setKey] = useState<string | undefined>();
  const models = useKeyModels(tokenId, key);
  const [model, setModel] = useState<string | undefined>();
  const [system, setSystem] = useState('');
  const [temperature, setTemperature] = useState(0.7);
  const [question, setQuestion] = useState('');
  const { turns, busy, send, stop, clear } = useChat();
  const bottom = useRef<HTMLDivElement>(null);

  // The first enabled key is picked for the user; the first of its models likewise.
  useEffect(() => {
    if (tokenId === undefined && tokens.length > 0) setTokenId(tokens[0].id);
  }, [tokenId, tokens]);
  useEffect(() => {
    if (tokenId === undefined) return;
    let current = true;
    setKey(undefined);
    revealTokenKey(tokenId).then(
      (whole) => current && setKey(`sk-${whole}`),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [tokenId]);
  const modelList = models.data;
  useEffect(() => {
    if (modelList && (!model || !modelList.includes(model))) setModel(modelList[0]);
  }, [modelList, model]);
  useEffect(() => {
    bottom.current?.scrollIntoView?.({ block: 'nearest' });
  }, [turns]);

  const ready = Boolean(key && model && question.trim() && !busy);
  const submit = () => {
    if (!ready) return;
    void send(question.trim(), { key: key!, model: model!, system, temperature }, turns);
    setQuestion('');
  };

  return (
    <Row gutter={16}>
      <Col xs={24} lg={8} style={{ marginBottom: 16 }}>
        <Card className="page-card" title="操练场设置">
          <Form layout="vertical">
            <Form.Item label="令牌" extra={tokens.length === 0 ? <span>还没有可用的令牌，请先到 <Link to="/token/add">令牌</Link> 页面创建</span> : '使用该令牌调用，费用计入该令牌'}>
              <Select aria-label="令牌" value={tokenId} options={tokens.map((t) => ({ value: t.id, label: t.name }))} onChange={(id) => setTokenId(id)} placeholder="请选择令牌" />
            </Form.Item>
            <Form.Item label="模型" validateStatus={models.isError ? 'error' : undefined} help={models.isError ? `无法获取模型列表：${(models.error as Error).message}` : undefined}>
              <Select aria-label="模型" showSearch value={model} loading={models.isFetching} options={(modelList ?? []).map((m) => ({ value: m, label: m }))} onChange={setModel} placeholder="请选择模型" notFoundContent="该令牌没有可用的模型" />
            </Form.Item>
            <Form.Item label="系统提示词">
              <Input.TextArea aria-label="系统提示词" autoSize={{ minRows: 3, maxRows: 8 }} value={system} onChange={(e) => setSystem(e.target.value)} placeholder="例如：你是一位简洁的助手" />
            </Form.Item>
            <Form.Item label="温度（temperature）">
              <Row gutter={8} align="middle">
                <Col flex="auto">
                  <Slider min={0} max={2} step={0.1} value={temperature} onChange={setTemperature} />
                </Col>
                <Col>
                  <InputNumber aria-label="温度" min={0} max={2} step={0.1} value={temperature} onChange={(v) => setTemperature(Number(v ?? 0))} style={{ width: 72 }} />
                </Col>
              </Row>
            </Form.Item>
            <Button onClick={clear} disabled={busy || turns.length === 0}>
              清空对话
            </Button>
          </Form>
        </Card>
      </Col>
      <Col xs={24} lg={16}>
        <Card className="page-card" title="对话">
          <div className="playground-turns" style={{ minHeight: 240, maxHeight: '60vh', overflowY: 'auto', marginBottom: 16 }}>
            {turns.length === 0 ? (
              <Empty description="输入问题开始对话" />
            ) : (
              turns.map((turn) => (
                <div key={turn.id} className={`playground-turn ${turn.role}`} style={{ marginBottom: 12, textAlign: turn.role === 'user' ? 'right' : 'left' }}>
                  <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                    {turn.role === 'user' ? '你' : model}
                  </Typography.Text>
                  {turn.status === 'error' ? (
                    <Alert type="error" showIcon title={`请求失败：${turn.error}`} />
                  ) : (
                    <div aria-label={turn.role === 'user' ? '提问' : '回答'} style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word', display: 'inline-block', textAlign: 'left', padding: '8px 12px', borderRadius: 8, background: turn.role === 'user' ? 'rgba(22,119,255,0.1)' : 'rgba(0,0,0,0.04)', maxWidth: '100%' }}>
                      {turn.content || (turn.status === 'streaming' ? '…' : '')}
                    </div>
                  )}
                  {turn.role === 'assistant' && <AnswerFooter turn={turn} />}
                </div>
              ))
            )}
            <div ref={bottom} />
          </div>
          <Space.Compact style={{ width: '100%' }}>
            <Input.TextArea
              aria-label="输入问题"
              autoSize={{ minRows: 1, maxRows: 6 }}
              value={question}
              placeholder="输入问题，Enter 发送，Shift + Enter 换行"
              onChange={(e) => setQuestion(e.target.value)}
              onPressEnter={(e) => {
                if (!e.shiftKey) {
                  e.preventDefault();
                  submit();
                }
              }}
            />
            {busy ? (
              <Button danger onClick={stop}>
                停止
              </Button>
            ) : (
              <Button type="primary" disabled={!ready} onClick={submit}>
                发送
              </Button>
            )}
          </Space.Compact>
        </Card>
      </Col>
    </Row>
  );
}
