import { Button, Modal } from 'antd';
import { useEffect, useState } from 'react';
import { getNotice } from '../api/status/get-notice';
import { isNoticeDue, markNoticeSeen } from '../lib/notice';
import { RichContent } from './rich-content';

/**
 * The notice (option Notice, GET /api/notice) in a dialog, once per content: closing it remembers the
 * content, and only a changed notice shows again. Fetched quietly: a missing notice is no error.
 */
export function NoticeDialog() {
  const [notice, setNotice] = useState('');
  useEffect(() => {
    let cancelled = false;
    getNotice()
      .then((body) => {
        if (!cancelled && body.success && typeof body.data === 'string' && isNoticeDue(body.data)) setNotice(body.data);
      })
      .catch(() => undefined);
    return () => {
      cancelled = true;
    };
  }, []);
  const dismiss = () => {
    markNoticeSeen(notice);
    setNotice('');
  };
  return (
    <Modal
      open={notice !== ''}
      title="公告"
      onCancel={dismiss}
      footer={
        <Button type="primary" onClick={dismiss}>
          我知道了
        </Button>
      }
    >
      <RichContent content={notice} />
    </Modal>
  );
}
