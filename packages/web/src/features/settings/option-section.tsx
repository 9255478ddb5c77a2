import { isSecretOptionKey } from '@model-relay/contract';
import { Button, Card, Checkbox, Col, Form, Input, InputNumber, Row, Select } from 'antd';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { toast } from '../../lib/toast';
import type { OptionMap } from './use-options';

export interface OptionField {
  key: string;
  label: string;
  kind?: 'text' | 'textarea' | 'number' | 'integer' | 'decimal' | 'secret' | 'switch' | 'select';
  placeholder?: string;
  options?: Array<{ value: string; label: string }>;
  /** Validates/normalises before saving; return a message to refuse. */
  check?: (value: string) => string | undefined;
  normalise?: (value: string) => string;
  span?: number;
}

/**
 * One section of option fields with a save button that sends only the changed keys. Switches (keys ending
 * in Enabled) are sent at once when toggled. Secrets start empty and are saved only when non-empty and
 * changed (docs/console.md §5).
 */
export function OptionSection({
  title,
  fields,
  options,
  saveMany,
  extra,
  beforeToggle,
}: {
  title: string;
  fields: OptionField[];
  options: OptionMap;
  saveMany: (entries: Array<[string, string]>) => Promise<boolean>;
  extra?: ReactNode;
  /** Asked before a switch is sent; return false to keep it as it is. */
  beforeToggle?: (key: string, next: boolean) => Promise<boolean>;
}) {
  const initial = (field: OptionField) => (isSecretOptionKey(field.key) ? '' : (options[field.key] ?? ''));
  const [values, setValues] = useState<Record<string, string>>({});
  /** A save under way: the button is busy (a second click would send the same keys again). */
  const [saving, setSaving] = useState(false);
  // Take over a stored value only when it changed, so saving one section never wipes unsaved edits in another.
  const seen = useRef<OptionMap>({});
  useEffect(() => {
    const changed = fields.filter((f) => options[f.key] !== seen.current[f.key]);
    seen.current = options;
    if (changed.length === 0) return;
    setValues((current) => ({ ...current, ...Object.fromEntries(changed.map((f) => [f.key, isSecretOptionKey(f.key) ? '' : (options[f.key] ?? '')])) }));
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [options]);

  const toggle = async (key: string, next: boolean) => {
    if (beforeToggle && !(await beforeToggle(key, next))) return;
    if (await saveMany([[key, next ? 'true' : 'false']])) toast.success('操作成功完成！');
  };

  const submit = async () => {
    const changed: Array<[string, string]> = [];
    for (const field of fields) {
      if (field.kind === 'switch') continue;
      const typed = values[field.key] ?? '';
      // A secret is never shown: it is saved only when filled in and different from what was last saved.
      if (isSecretOptionKey(field.key) && (typed === '' || typed === options[field.key])) continue;
      let value = numberForSaving(field, typed);
      if (field.normalise) value = field.normalise(value);
      // Unchanged when the text was not edited (an empty ratio text stands for '{}') or normalises to the stored value.
      if (!isSecretOptionKey(field.key) && (typed === initial(field) || value === initial(field))) continue;
      const problem = numberProblem(field, value) ?? field.check?.(value);
      if (problem) {
        toast.error(problem);
        return;
      }
      changed.push([field.key, value]);
    }
    if (changed.length === 0) {
      toast.info('没有需要保存的修改');
      return;
    }
    setSaving(true);
    try {
      if (await saveMany(changed)) toast.success('保存成功');
    } finally {
      setSaving(false);
    }
  };

  const hasInputs = fields.some((f) => f.kind !== 'switch');
  return (
    <Card size="small" title={title} style={{ marginBottom: 16 }}>
      <Form layout="vertical">
        <Row gutter={16}>
          {fields.map((field) => (
            <Col key={field.key} xs={24} md={field.span ?? (field.kind === 'textarea' ? 24 : field.kind === 'switch' ? 12 : 8)}>
              {field.kind === 'switch' ? (
                <Form.Item>
                  <Checkbox checked={options[field.key] === 'true'} onChange={(e) => void toggle(field.key, e.target.checked)}>
                    {field.label}
                  </Checkbox>
                </Form.Item>
              ) : (
                <Form.Item label={field.label}>{renderInput(field, values[field.key] ?? '', (v) => setValues((c) => ({ ...c, [field.key]: v })))}</Form.Item>
              )}
            </Col>
          ))}
        </Row>
        {extra}
        {hasInputs && (
          <Button type="primary" loading={saving} aria-label={`保存${title}`} onClick={() => void submit()}>
            保存{title}
          </Button>
        )}
      </Form>
    </Card>
  );
}

/**
 * Number inputs have minimum 0; integer ones (e.g. RetryTimes) step 1 and no fraction (docs/console.md §5). While
 * typing, the input reports a fraction as typed although it shows it rounded, so a fraction is rounded here to
 * save what is shown (the server refuses a fraction for an integer key). A value below 0 or an emptied field is
 * refused by the save (`numberProblem`) rather than saved as another number than the one on screen.
 */
function numberForSaving(field: OptionField, value: string): string {
  if (!isNumberField(field)) return value;
  if (value.trim() === '' || !Number.isFinite(Number(value))) return value;
  const n = Number(value);
  return String(field.kind === 'integer' ? Math.round(n) : n);
}

const isNumberField = (field: OptionField) => field.kind === 'integer' || field.kind === 'number' || field.kind === 'decimal';

/** Why a number field's value cannot be saved, in the words of the server's own refusal. */
function numberProblem(field: OptionField, value: string): string | undefined {
  if (!isNumberField(field)) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) return `${field.label}必须是非负${field.kind === 'integer' ? '整数' : '数字'}`;
  return undefined;
}

function renderInput(field: OptionField, value: string, onChange: (value: string) => void) {
  const label = field.label;
  switch (field.kind) {
    case 'textarea':
      return <Input.TextArea aria-label={label} autoSize={{ minRows: 4, maxRows: 16 }} value={value} placeholder={field.placeholder} onChange={(e) => onChange(e.target.value)} style={{ fontFamily: 'monospace' }} />;
    case 'integer':
    case 'number':
    case 'decimal':
      return (
        <InputNumber
          aria-label={label}
          style={{ width: '100%' }}
          value={value === '' ? null : Number(value)}
          min={0}
          step={field.kind === 'decimal' ? 0.01 : 1}
          precision={field.kind === 'integer' ? 0 : undefined}
          onChange={(v) => onChange(v === null ? '' : String(v))}
        />
      );
    case 'secret':
      return <Input.Password aria-label={label} value={value} placeholder={field.placeholder ?? '敏感信息不会发送到前端显示'} onChange={(e) => onChange(e.target.value)} autoComplete="new-password" />;
    case 'select':
      return <Select aria-label={label} value={value} options={field.options} onChange={onChange} />;
    default:
      return <Input aria-label={label} value={value} placeholder={field.placeholder} onChange={(e) => onChange(e.target.value)} />;
  }
}
