import { Card, Spin } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useLocation, useNavigate, useSearchParams } from 'react-router';
import { signInWithOAuth } from '../../api/oauth/sign-in-with-oauth';
import { setStoredUser } from '../../lib/storage';
import { toast } from '../../lib/toast';

/** docs/console.md §4: retry n waits 2000 ms x n. */
export const RETRY_DELAY_MS = 2000;
/** Retries after a failed call (no answer, or an HTTP error such as 429 or 500) before giving up. */
export const MAX_RETRIES = 3;
/** How long the failure message stays before the redirect. */
const REDIRECT_DELAY_MS = 1500;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * /oauth/github and /oauth/lark: the provider sends the browser here with code and state; the page passes
 * them to the server (docs/console.md §4). "bind" means the account was linked to the signed-in user: back to
 * the settings. Otherwise the user is signed in and goes home. A refusal shows "操作失败..." and leads to
 * the settings (which sends a signed-out visitor on to the login page); a call that got no usable answer is
 * repeated after 2 s, 4 s, 6 s with "出现错误，第 N 次重试中...".
 */
export default function OAuthCallbackPage() {
  const location = useLocation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const [prompt, setPrompt] = useState('处理中...');
  const started = useRef(false);
  const provider = location.pathname.endsWith('/lark') ? 'lark' : 'github';

  useEffect(() => {
    // The code is single use: never send it twice (React may run effects twice in development).
    if (started.current) return;
    started.current = true;
    const code = params.get('code') ?? '';
    const state = params.get('state') ?? '';
    const giveUp = async () => {
      setPrompt('操作失败，重定向至登录界面中...');
      await sleep(REDIRECT_DELAY_MS);
      navigate('/setting');
    };
    const run = async () => {
      for (let attempt = 0; ; attempt++) {
        try {
          const res = await signInWithOAuth(provider, code, state);
          if (!res.success) return giveUp();
          if (res.data) setStoredUser(res.data);
          if (res.message === 'bind') {
            toast.success('绑定成功！');
            navigate('/setting');
          } else {
            toast.success('登录成功！');
            navigate('/');
          }
          return;
        } catch {
          if (attempt >= MAX_RETRIES) return giveUp();
          setPrompt(`出现错误，第 ${attempt + 1} 次重试中...`);
          await sleep(RETRY_DELAY_MS * (attempt + 1));
        }
      }
    };
    void run();
  }, [navigate, params, provider]);

  return (
    <Card className="auth-card">
      <div style={{ display: 'flex', alignItems: 'center', gap: 12, justifyContent: 'center', padding: 24 }}>
        <Spin />
        <span role="status">{prompt}</span>
      </div>
    </Card>
  );
}
