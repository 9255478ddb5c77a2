import { Card, Col, Descriptions, Row, Segmented } from 'antd';
import { useMemo, useState } from 'react';
import { useExportDashboard } from '../../api/dashboard/export-dashboard';
import { useDashboardReport } from '../../api/dashboard/get-dashboard-report';
import { useDashboardSummary } from '../../api/dashboard/get-dashboard-summary';
import { useAllTokens } from '../../api/tokens/get-tokens';
import { quotaDisplay, renderQuota } from '../../lib/format';
import { isAdmin, useUser } from '../../lib/session';
import { toast } from '../../lib/toast';
import { dashboardQuery, defaultDashboardFilters, meanLatency, viewerOffset, type DashboardFilters } from './chart-data';
import { DashboardFiltersForm } from './dashboard-filters';
import { SummaryCards } from './summary-cards';
import { ModelPie, RankingBars, TrendChart } from './usage-charts';
import { ChannelTable, ModelTable, TokenTable, UserTable } from './usage-tables';

type View = '我的用量' | '全站用量';

/**
 * 仪表盘 (issue 11): balance and spending today / this month, charts of spending and requests over time and by
 * model for a date range, the keys spent most on; admins can switch to everyone's usage, with the top users and
 * channels. Everything comes from the hourly rollups; CSV export of the range. The first screen of ordinary users.
 */
export default function DashboardPage() {
  const admin = isAdmin(useUser());
  const [view, setView] = useState<View>(admin ? '全站用量' : '我的用量');
  const everyone = admin && view === '全站用量';
  const [draft, setDraft] = useState<DashboardFilters>(() => defaultDashboardFilters());
  const [filters, setFilters] = useState<DashboardFilters>(draft);
  const tz = viewerOffset();
  const query = useMemo(() => dashboardQuery(filters, everyone, tz), [filters, everyone, tz]);
  const summary = useDashboardSummary(everyone, tz);
  const report = useDashboardReport(everyone, query);
  const tokens = useAllTokens(!everyone).data ?? [];
  const exporter = useExportDashboard();
  const display = useMemo(() => quotaDisplay(), []);
  const data = report.data;
  const loading = report.isFetching;

  const exportCsv = async () => {
    try {
      const saved = await exporter.mutateAsync({ all: everyone, query });
      if (saved) toast.success(`已导出 ${saved}`);
    } catch {
      /* shown by the request client */
    }
  };

  const totals = data?.totals;
  return (
    <Card
      className="page-card dashboard"
      title="仪表盘"
      extra={admin && <Segmented<View> aria-label="用量范围" options={['全站用量', '我的用量']} value={view} onChange={setView} />}
    >
      <SummaryCards summary={summary.data} loading={summary.isLoading} />
      <DashboardFiltersForm
        draft={draft}
        onChange={setDraft}
        onApply={() => setFilters(draft)}
        onExport={() => void exportCsv()}
        exporting={exporter.isPending}
        everyone={everyone}
        models={(data?.models ?? []).map((m) => m.model)}
        tokens={tokens}
      />
      {totals && (
        <Descriptions
          size="small"
          bordered
          style={{ marginBottom: 16 }}
          column={{ xs: 1, sm: 3, lg: 6 }}
          aria-label="所选范围合计"
          items={[
            { key: 'quota', label: '消费', children: renderQuota(totals.quota) },
            { key: 'requests', label: '请求数', children: totals.requests.toLocaleString('en-US') },
            { key: 'failures', label: '失败数', children: totals.failures.toLocaleString('en-US') },
            { key: 'prompt', label: '输入 tokens', children: totals.prompt_tokens.toLocaleString('en-US') },
            { key: 'completion', label: '输出 tokens', children: totals.completion_tokens.toLocaleString('en-US') },
            { key: 'latency', label: '平均耗时', children: meanLatency(totals) },
          ]}
        />
      )}
      {data && <TrendChart report={data} display={display} />}
      <Row gutter={16}>
        <Col xs={24} lg={9}>
          {data && <ModelPie report={data} display={display} />}
        </Col>
        <Col xs={24} lg={15} style={{ marginBottom: 16 }}>
          <ModelTable rows={data?.models} loading={loading} />
        </Col>
      </Row>
      {everyone && (
        <Row gutter={16}>
          <Col xs={24} xl={12} style={{ marginBottom: 16 }}>
            <Card size="small" title="用户消费排行" style={{ marginBottom: 16 }}>
              <RankingBars label="用户消费排行" rows={(data?.users ?? []).map((u) => ({ name: u.username, quota: u.quota }))} display={display} />
            </Card>
            <UserTable rows={data?.users} loading={loading} />
          </Col>
          <Col xs={24} xl={12} style={{ marginBottom: 16 }}>
            <Card size="small" title="渠道消费排行" style={{ marginBottom: 16 }}>
              <RankingBars label="渠道消费排行" rows={(data?.channels ?? []).map((c) => ({ name: c.channel_name, quota: c.quota }))} display={display} />
            </Card>
            <ChannelTable rows={data?.channels} loading={loading} />
          </Col>
        </Row>
      )}
      <TokenTable rows={data?.tokens} loading={loading} showOwner={everyone} />
    </Card>
  );
}
