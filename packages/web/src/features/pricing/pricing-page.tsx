import { formatPrice, pricesPerMillion, type LongContextBand, type PricingModel } from '@model-relay/contract';
import { Alert, Button, Result, Space, Tag, Tooltip } from 'antd';
import { useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import { usePricing } from '../../api/pricing/get-pricing';
import type { ListColumn } from '../../components/list-table/columns';
import { ListTable } from '../../components/list-table/list-table';
import { useStaticList } from '../../components/list-table/use-static-list';
import { quotaDisplay } from '../../lib/format';
import { useUser } from '../../lib/session';

type Row = PricingModel & ReturnType<typeof pricesPerMillion>;

/** A prompt length as vendors write it: 200K, 1M. */
const tokensText = (tokens: number) => (tokens >= 1_000_000 && tokens % 100_000 === 0 ? `${tokens / 1_000_000}M` : tokens >= 1000 ? `${Math.round(tokens / 100) / 10}K` : String(tokens));

/** The prices of a model's long-context bands under its standard one: "提示超过 200K：$6.00". */
function Bands({ bands, side, base, price }: { bands?: LongContextBand[]; side: 'input' | 'output'; base: number; price: (quota: number) => string }) {
  if (!bands?.length) return null;
  return (
    <>
      {bands.map((band) => (
        <div key={band.above} style={{ fontSize: 12, opacity: 0.65 }}>
          提示超过 {tokensText(band.above)}：{price(base * band[side])}
        </div>
      ))}
    </>
  );
}

/**
 * 定价 (/pricing): every model the visitor's group can call (the default group for visitors) with its input,
 * output, cache-read and cache-write prices per million tokens in the display currency, computed from the ratios
 * billing applies (QuotaPerUnit units = US$1; ratio 1 = US$2 per million tokens at group ratio 1).
 */
export default function PricingPage() {
  const user = useUser();
  const navigate = useNavigate();
  const pricing = usePricing(user?.id);
  const [keyword, setKeyword] = useState('');
  const display = useMemo(() => quotaDisplay(), []);
  const answer = pricing.data;
  const list = answer && 'data' in answer ? answer : undefined;
  const group = list ? Object.keys(list.usable_group)[0] : undefined;
  const groupRatio = group ? (list?.group_ratio[group] ?? 1) : 1;
  const rows = useMemo<Row[] | undefined>(() => list?.data.map((m) => ({ ...m, ...pricesPerMillion(m, groupRatio) })), [list, groupRatio]);
  const shown = useMemo(() => rows?.filter((r) => r.model_name.toLowerCase().includes(keyword.trim().toLowerCase())), [rows, keyword]);
  const table = useStaticList(shown, pricing.isFetching);

  if (answer && 'refused' in answer) {
    return (
      <Result
        status="403"
        title="定价页面未开放"
        subTitle={answer.refused}
        extra={
          <Button type="primary" onClick={() => navigate('/login', { state: { from: { pathname: '/pricing' } } })}>
            登录
          </Button>
        }
      />
    );
  }

  const price = (quota: number) => formatPrice(quota, display);
  const ratioTip = (row: Row, ratio: number, what: string) => `模型倍率 ${row.model_ratio} × ${what} ${ratio} × 分组倍率 ${groupRatio}`;
  const columns: ListColumn<Row>[] = [
    {
      key: 'model_name',
      title: '模型',
      dataIndex: 'model_name',
      sort: 'model_name',
      render: (name: string, row) => (
        <Space size={4} wrap>
          <span>{name}</span>
          {!row.ratio_configured && (
            <Tooltip title="管理员尚未为该模型配置倍率，按默认倍率计费">
              <Tag color="orange">默认倍率</Tag>
            </Tooltip>
          )}
        </Space>
      ),
    },
    {
      key: 'input',
      title: '输入',
      dataIndex: 'input',
      sort: 'input',
      render: (v: number, row) => (
        <Tooltip title={ratioTip(row, 1, '输入')}>
          {price(v)}
          <Bands bands={row.long_context} side="input" base={v} price={price} />
        </Tooltip>
      ),
    },
    {
      key: 'output',
      title: '输出',
      dataIndex: 'output',
      sort: 'output',
      render: (v: number, row) => (
        <Tooltip title={ratioTip(row, row.completion_ratio, '补全倍率')}>
          {price(v)}
          <Bands bands={row.long_context} side="output" base={v} price={price} />
          {row.reasoning_ratio !== row.completion_ratio && <div style={{ fontSize: 12, opacity: 0.65 }}>推理：{price(row.reasoning)}</div>}
        </Tooltip>
      ),
    },
    { key: 'cacheRead', title: '缓存读取', dataIndex: 'cacheRead', sort: 'cacheRead', render: (v: number, row) => <Tooltip title={ratioTip(row, row.cache_ratio, '缓存读取倍率')}>{price(v)}</Tooltip> },
    {
      key: 'cacheWrite',
      title: '缓存写入',
      dataIndex: 'cacheWrite',
      sort: 'cacheWrite',
      render: (v: number, row) => (
        <Tooltip title={ratioTip(row, row.create_cache_ratio, '缓存写入倍率')}>
          {price(v)}
          {row.create_cache_1h_ratio !== row.create_cache_ratio && <div style={{ fontSize: 12, opacity: 0.65 }}>1 小时：{price(row.cacheWrite1h)}</div>}
        </Tooltip>
      ),
    },
  ];
  const unit = display.displayInCurrency ? '美元' : '额度';
  return (
    <ListTable<Row>
      title="模型定价"
      list={table}
      columns={columns}
      rowKey="model_name"
      scrollX={720}
      search={{ placeholder: '搜索模型名称', value: keyword, onChange: setKeyword }}
      notice={
        <Alert
          type="info"
          showIcon
          style={{ marginBottom: 16 }}
          title={`价格单位：${unit} / 每百万 tokens${group ? `；${user ? '你的' : '默认'}分组 ${group}，分组倍率 ${groupRatio}` : ''}`}
          description="一次请求的费用 = 各类 tokens 数 × 对应价格之和（缓存读取、缓存写入的 tokens 不再按输入价格计；推理 tokens 未单独定价时按输出价格计）。标有“提示超过”的模型按提示长度分档计价：一次请求的输入（含缓存读取与写入）超过该长度时，这次请求的全部输入类价格与输出类价格按所示档位计。"
        />
      }
      empty={{ description: '当前分组没有可用的模型' }}
    />
  );
}
