import { useEffect, useRef } from 'react';

declare global {
  interface Window {
    turnstile?: { render: (el: HTMLElement, options: { sitekey: string; callback: (token: string) => void }) => string };
  }
}

const SCRIPT = 'https://challenges.cloudflare.com/turnstile/v0/api.js';

/** The Cloudflare Turnstile bot-check widget; reports its token once the check passes. */
export function Turnstile({ siteKey, onVerify }: { siteKey: string; onVerify: (token: string) => void }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    let cancelled = false;
    const render = () => {
      if (!cancelled && ref.current && window.turnstile) window.turnstile.render(ref.current, { sitekey: siteKey, callback: onVerify });
    };
    if (window.turnstile) render();
    else {
      const script = document.createElement('script');
      script.src = SCRIPT;
      script.async = true;
      script.onload = render;
      document.head.appendChild(script);
    }
    return () => {
      cancelled = true;
    };
  }, [siteKey, onVerify]);
  return <div ref={ref} style={{ margin: '12px 0' }} />;
}
