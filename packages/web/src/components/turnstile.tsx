import { useEffect, useRef } from 'react';
import { useStatus } from '../lib/session';
import { toast } from '../lib/toast';

interface TurnstileApi {
  render: (el: HTMLElement, options: { sitekey: string; callback: (token: string) => void; 'expired-callback'?: () => void }) => string;
  remove?: (widgetId: string) => void;
}
declare global {
  interface Window {
    turnstile?: TurnstileApi;
  }
}

const DEFAULT_SCRIPT = 'https://challenges.cloudflare.com/turnstile/v0/api.js';
let loading: Promise<void> | undefined;

/** Loads the widget script once per page (its address comes from the server's TURNSTILE_SCRIPT_URL). */
function loadScript(src: string): Promise<void> {
  if (window.turnstile) return Promise.resolve();
  loading ??= new Promise<void>((resolve, reject) => {
    const script = document.createElement('script');
    script.src = src;
    script.async = true;
    script.onload = () => resolve();
    script.onerror = () => {
      loading = undefined;
      script.remove();
      reject(new Error(`cannot load ${src}`));
    };
    document.head.appendChild(script);
  });
  return loading;
}

/**
 * The Turnstile bot-check widget, shown when the server has it on (status turnstile_check and a site key).
 * Reports the token once the check passes, and '' when that token expires.
 */
export function Turnstile({ onVerify }: { onVerify: (token: string) => void }) {
  const status = useStatus();
  const ref = useRef<HTMLDivElement>(null);
  const siteKey = status?.turnstile_check ? status.turnstile_site_key : '';
  const scriptUrl = status?.turnstile_script_url || DEFAULT_SCRIPT;
  useEffect(() => {
    if (!siteKey) return;
    let cancelled = false;
    let widgetId: string | undefined;
    loadScript(scriptUrl)
      .then(() => {
        if (cancelled || !ref.current || !window.turnstile) return;
        widgetId = window.turnstile.render(ref.current, { sitekey: siteKey, callback: onVerify, 'expired-callback': () => onVerify('') });
      })
      .catch(() => toast.error('错误：无法加载 Turnstile 人机验证，请刷新重试'));
    return () => {
      cancelled = true;
      if (widgetId) window.turnstile?.remove?.(widgetId);
    };
  }, [siteKey, scriptUrl, onVerify]);
  if (!siteKey) return null;
  return <div ref={ref} className="turnstile" style={{ margin: '12px 0' }} />;
}
