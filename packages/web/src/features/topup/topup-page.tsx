import { RedemptionMessages, redeemSchema, firstIssueMessage } from '@model-relay/contract';
import { Button, Card, Col, Divider, Input, Row, Space, Statistic, Typography } from 'antd';
import { useState } from 'react';
import { useRedeemCode } from '../../api/redemptions/redeem-code';
import { useSelf } from '../../api/users/get-self';
import { ApiError, ApiRefusal } from '../../lib/api';
import { renderQuota } from '../../lib/format';
import { useStatus, useUser } from '../../lib/session';
import { toast } from '../../lib/toast';
import { topUpUrl } from './transaction-id';

/** 充值: redeem a code, or buy one through the configured top-up link; the balance is shown (docs/console.md §2). */
export default function TopUpPage() {
  const user = useUser();
  const status = useStatus();
  const self = useSelf();
  const redeem = useRedeemCode();
  const [code, setCode] = useState('');
  const [added, setAdded] = useState<number | undefined>();

  const submit = async () => {
    const parsed = redeemSchema.safeParse({ key: code });
    if (!parsed.success) return toast.error(firstIssueMessage(parsed.error));
    try {
      const quota = await redeem.mutateAsync(parsed.data.key);
      toast.success('充值成功！');
      setAdded(quota);
      setCode('');
    } catch (error) {
      // Refusals and HTTP errors were shown with their reason; anything else gets the catalogue's text.
      if (!(error instanceof ApiRefusal) && !(error instanceof ApiError && error.status !== undefined)) toast.error('请求失败');
    }
  };

  const openTopUpLink = () => {
    const link = status?.top_up_link?.trim();
    if (!link) return toast.error(RedemptionMessages.topUpLinkMissing);
    if (!user) return;
    window.open(topUpUrl(link, user), '_blank');
  };

  const account = self.data;
  return (
    <Card className="page-card" title="充值额度" style={{ maxWidth: 720 }}>
      <Row gutter={16}>
        <Col xs={24} sm={8}>
          <Statistic title="剩余额度" value={account ? renderQuota(account.quota) : '-'} loading={self.isLoading} />
        </Col>
        <Col xs={12} sm={8}>
          <Statistic title="已用额度" value={account ? renderQuota(account.used_quota) : '-'} loading={self.isLoading} />
        </Col>
        <Col xs={12} sm={8}>
          <Statistic title="请求次数" value={account ? account.request_count.toLocaleString('en-US') : '-'} loading={self.isLoading} />
        </Col>
      </Row>
      <Divider />
      <Typography.Paragraph type="secondary">输入兑换码后点击兑换，额度立即到账。没有兑换码时，点击充值前往购买。</Typography.Paragraph>
      <Space.Compact style={{ width: '100%' }}>
        <Input placeholder="请输入兑换码" aria-label="兑换码" value={code} onChange={(e) => setCode(e.target.value)} onPressEnter={() => void submit()} allowClear />
        <Button type="primary" loading={redeem.isPending} onClick={() => void submit()}>
          兑换
        </Button>
      </Space.Compact>
      <Space style={{ marginTop: 16 }} wrap>
        <Button onClick={openTopUpLink}>充值</Button>
        {added !== undefined && <Typography.Text type="success">已成功兑换 {renderQuota(added)}</Typography.Text>}
      </Space>
    </Card>
  );
}
