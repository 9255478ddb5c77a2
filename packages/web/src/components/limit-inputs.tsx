import { LIMIT_FIELDS, LIMIT_LABELS, type LimitField, type Limits } from '@model-relay/contract';
import { Col, Form, InputNumber, Row } from 'antd';
import { renderQuota } from '../lib/format';

export const NO_LIMITS: Limits = { rpm_limit: 0, tpm_limit: 0, daily_quota_limit: 0, monthly_quota_limit: 0 };

/** Quota limits are amounts (shown by the one money rule beside their label); the others are counts. */
const isQuota = (field: LimitField) => field === 'daily_quota_limit' || field === 'monthly_quota_limit';

/** The label of a limit with what its value means: 不限制 for 0, the amount for a quota. */
export function limitLabel(field: LimitField, value: number | null | undefined): string {
  const n = Number(value ?? 0);
  if (!n) return `${LIMIT_LABELS[field]}（不限制）`;
  return isQuota(field) ? `${LIMIT_LABELS[field]}（${renderQuota(n)}）` : LIMIT_LABELS[field];
}

/**
 * The four limits of a key or a user (requests / tokens per minute, quota per day / month; 0 = none), as whole
 * numbers. Controlled (`value` + `onChange`) for the token form, or bound to a Form by field name (`inForm`).
 */
export function LimitInputs({ value, onChange, inForm }: { value: Limits; onChange?: (next: Limits) => void; inForm?: boolean }) {
  return (
    <Row gutter={16}>
      {LIMIT_FIELDS.map((field) => (
        <Col key={field} xs={24} sm={12}>
          {inForm ? (
            <Form.Item label={limitLabel(field, value[field])} name={field}>
              <InputNumber aria-label={LIMIT_LABELS[field]} min={0} precision={0} style={{ width: '100%' }} placeholder="0 表示不限制" />
            </Form.Item>
          ) : (
            <Form.Item label={limitLabel(field, value[field])}>
              <InputNumber aria-label={LIMIT_LABELS[field]} min={0} precision={0} style={{ width: '100%' }} placeholder="0 表示不限制" value={value[field]} onChange={(v) => onChange?.({ ...value, [field]: Math.trunc(Number(v ?? 0)) })} />
            </Form.Item>
          )}
        </Col>
      ))}
    </Row>
  );
}
