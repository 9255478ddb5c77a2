import { THEMES, THEME_LABELS } from '@model-relay/contract';
import { Button, Card, Modal } from 'antd';
import { useState } from 'react';
import { RichContent } from '../../components/rich-content';
import { useStatus } from '../../lib/session';
import { toast } from '../../lib/toast';
import { OptionSection } from './option-section';
import { useOptions } from './use-options';

/** 其他设置: update check, notice, system name, theme, logo, home page, about, footer. */
export default function OtherSettings() {
  const { options, loaded, saveMany } = useOptions();
  const status = useStatus();
  const [release, setRelease] = useState<{ tag_name: string; body: string; html_url?: string } | undefined>();
  if (!loaded) return null;

  // The code host's "latest release" endpoint comes from the server (RELEASES_URL); empty turns the check off.
  const checkUpdate = async () => {
    const releasesUrl = status?.releases_url;
    if (!releasesUrl) {
      toast.info('管理员未配置更新检查地址（RELEASES_URL）');
      return;
    }
    try {
      const response = await fetch(releasesUrl);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const data = (await response.json()) as { tag_name: string; body: string; html_url?: string };
      if (data.tag_name === status?.version || data.tag_name === `v${status?.version}`) toast.success(`已是最新版本：${data.tag_name}`);
      else setRelease(data);
    } catch (error) {
      toast.error(`错误：检查更新失败（${(error as Error).message}）`);
    }
  };

  return (
    <>
      <Card size="small" title="通用设置" style={{ marginBottom: 16 }}>
        <Button onClick={() => void checkUpdate()}>检查更新</Button>
      </Card>
      <OptionSection title="公告" options={options} saveMany={saveMany} fields={[{ key: 'Notice', label: '公告', kind: 'textarea', placeholder: '在此输入新的公告内容，支持 Markdown & HTML 代码' }]} />
      <OptionSection
        title="个性化设置"
        options={options}
        saveMany={saveMany}
        fields={[
          { key: 'SystemName', label: '系统名称', placeholder: '在此输入系统名称' },
          { key: 'Theme', label: '主题名称', kind: 'select', options: THEMES.map((value) => ({ value, label: THEME_LABELS[value] })) },
          { key: 'Logo', label: 'Logo 图片地址', placeholder: '在此输入 Logo 图片地址' },
          { key: 'HomePageContent', label: '首页内容', kind: 'textarea', placeholder: '在此输入首页内容，支持 Markdown & HTML 代码，设置后首页的状态信息将不再显示。如果输入的是一个链接，则会使用该链接作为 iframe 的 src 属性' },
          { key: 'About', label: '关于', kind: 'textarea', placeholder: '在此输入新的关于内容，支持 Markdown & HTML 代码。如果输入的是一个链接，则会使用该链接作为 iframe 的 src 属性' },
          { key: 'Footer', label: '页脚', kind: 'textarea', placeholder: '在此输入新的页脚，留空则使用默认页脚，支持 HTML 代码' },
        ]}
      />
      <Modal
        open={Boolean(release)}
        title="新版本"
        onCancel={() => setRelease(undefined)}
        footer={[
          <Button key="close" onClick={() => setRelease(undefined)}>关闭</Button>,
          <Button key="details" type="primary" onClick={() => release?.html_url && window.open(release.html_url)}>详情</Button>,
        ]}
      >
        <h3>{release?.tag_name}</h3>
        <RichContent content={release?.body ?? ''} />
      </Modal>
    </>
  );
}
