import DOMPurify from 'dompurify';
import { marked } from 'marked';
import { useMemo } from 'react';

/**
 * Shows admin-configured content (home page, about, notice): a URL is shown in an iframe, anything else is
 * rendered as Markdown (which passes HTML through), sanitised.
 */
export function RichContent({ content }: { content: string }) {
  const html = useMemo(() => DOMPurify.sanitize(marked.parse(content, { async: false })), [content]);
  if (/^https?:\/\//.test(content.trim())) {
    return <iframe src={content.trim()} title="content" style={{ width: '100%', height: '80vh', border: 'none' }} />;
  }
  return <div className="rich-content" dangerouslySetInnerHTML={{ __html: html }} />;
}
