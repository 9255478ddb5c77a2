import type { DashboardSummary, UsageTotals } from '@model-relay/contract';
import { Card, Col, Row, Statistic } from 'antd';
import { renderQuota } from '../../lib/format';
import { tokensOf } from './chart-data';

const count = (n: number) => n.toLocaleString('en-US');
const detail = (t: UsageTotals) => `请求 ${count(t.requests)} 次 · ${count(tokensOf(t))} tokens${t.failures ? ` · 失败 ${count(t.failures)} 次` : ''}`;

/** Balance, spent today and this month, with requests and tokens (the viewer's own, or everyone's for admins). */
export function SummaryCards({ summary, loading }: { summary: DashboardSummary | undefined; loading: boolean }) {
  const all = summary?.scope === 'all';
  const cards = [
    { key: 'balance', title: all ? '用户余额合计' : '当前余额', value: summary ? renderQuota(summary.balance) : '—', note: summary ? `累计消费 ${renderQuota(summary.used_quota)}` : '' },
    { key: 'today', title: '今日消费', value: summary ? renderQuota(summary.today.quota) : '—', note: summary ? detail(summary.today) : '' },
    { key: 'month', title: '本月消费', value: summary ? renderQuota(summary.month.quota) : '—', note: summary ? detail(summary.month) : '' },
    { key: 'requests', title: '累计请求', value: summary ? count(summary.request_count) : '—', note: summary ? `本月 tokens ${count(tokensOf(summary.month))}` : '' },
  ];
  return (
    <Row gutter={[16, 16]} style={{ marginBottom: 16 }}>
      {cards.map((card) => (
        <Col key={card.key} xs={24} sm={12} lg={6}>
          <Card size="small" loading={loading && !summary} aria-label={card.title}>
            <Statistic title={card.title} value={card.value} />
            <div style={{ marginTop: 4, fontSize: 12, opacity: 0.65 }}>{card.note}</div>
          </Card>
        </Col>
      ))}
    </Row>
  );
}
