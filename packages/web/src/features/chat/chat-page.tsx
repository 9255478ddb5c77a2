import { Empty } from 'antd';
import { useStatus } from '../../lib/session';

/** Chat: an iframe of the configured chat link. */
export default function ChatPage() {
  const status = useStatus();
  if (!status?.chat_link) return <Empty description="管理员尚未配置聊天链接" />;
  return <iframe src={status.chat_link} title="chat" style={{ width: '100%', height: 'calc(100vh - 200px)', border: 'none' }} />;
}
