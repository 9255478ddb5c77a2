import { api } from '../../lib/api';

/** GET /api/home_page_content: the configured home page (Markdown, HTML or a URL), quietly; the envelope. */
export const getHomePageContent = () => api<string>('/api/home_page_content', { quiet: true });
