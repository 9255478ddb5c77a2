import type { StatusObject } from '@model-relay/contract';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { ok } from '../../http/typed-routes.js';

/** Public routes: the status object and the configured texts. They take no input. */
export function statusRoutes(app: FastifyInstance, ctx: AppContext): void {
  const { options } = ctx;
  app.get('/api/status', async () => {
    const data: StatusObject = {
      version: ctx.version,
      start_time: ctx.startTime,
      system_name: options.get('SystemName'),
      logo: options.get('Logo'),
      footer_html: options.get('Footer'),
      quota_per_unit: options.number('QuotaPerUnit'),
      display_in_currency: options.bool('DisplayInCurrencyEnabled'),
      chat_link: options.get('ChatLink'),
      server_address: options.get('ServerAddress'),
      top_up_link: options.get('TopUpLink'),
      turnstile_check: options.bool('TurnstileCheckEnabled'),
      turnstile_site_key: options.get('TurnstileSiteKey'),
      email_verification: options.bool('EmailVerificationEnabled'),
      github_oauth: options.bool('GitHubOAuthEnabled'),
      github_client_id: options.get('GitHubClientId'),
      wechat_login: options.bool('WeChatAuthEnabled'),
      wechat_qrcode: options.get('WeChatAccountQRCodeImageURL'),
      lark_client_id: options.get('LarkClientId'),
      theme: options.get('Theme'),
      github_authorize_url: ctx.integrations.github.authorizeUrl,
      lark_authorize_url: ctx.integrations.lark.authorizeUrl,
      turnstile_script_url: ctx.config.TURNSTILE_SCRIPT_URL,
      releases_url: ctx.config.RELEASES_URL,
      pricing_page: options.bool('PricingPageEnabled'),
    };
    return ok(data);
  });
  app.get('/api/notice', async () => ok(options.get('Notice')));
  app.get('/api/about', async () => ok(options.get('About')));
  app.get('/api/home_page_content', async () => ok(options.get('HomePageContent')));
}
