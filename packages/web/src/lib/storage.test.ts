import { beforeEach, describe, expect, it } from 'vitest';
import { getStoredStatus, getStoredUser, isPromptDue, markPromptSeen, setStoredUser, storeStatus } from './storage';

beforeEach(() => localStorage.clear());

describe('local storage keys (docs/console.md §3)', () => {
  // covers S3-ENTITY-11
  it('keeps the current user as JSON under key user', () => {
    setStoredUser({ id: 3, username: 'amy', display_name: 'Amy', role: 1, status: 1 });
    expect(JSON.parse(localStorage.getItem('user')!)).toMatchObject({ id: 3, username: 'amy' });
    expect(getStoredUser()?.username).toBe('amy');
    setStoredUser(undefined);
    expect(localStorage.getItem('user')).toBeNull();
  });

  // covers S3-ENTITY-30, S3-ENTITY-32, S3-ENTITY-33, S3-ENTITY-34, S3-ENTITY-35, S3-ENTITY-36
  it('caches the status object and its fields under their own keys', () => {
    storeStatus({
      version: '1', start_time: 0, system_name: '网关', logo: '/x.png', footer_html: '<i>f</i>', quota_per_unit: 1000, display_in_currency: false,
      chat_link: '', server_address: '', top_up_link: '', turnstile_check: false, turnstile_site_key: '', email_verification: false,
      github_oauth: false, github_client_id: '', wechat_login: false, wechat_qrcode: '', lark_client_id: '',
      theme: 'default', github_authorize_url: '', lark_authorize_url: '', turnstile_script_url: '', releases_url: '', pricing_page: true,
    });
    expect(getStoredStatus()?.system_name).toBe('网关');
    expect(localStorage.getItem('system_name')).toBe('网关');
    expect(localStorage.getItem('logo')).toBe('/x.png');
    expect(localStorage.getItem('footer_html')).toBe('<i>f</i>');
    expect(localStorage.getItem('quota_per_unit')).toBe('1000');
    expect(localStorage.getItem('display_in_currency')).toBe('false');
  });

  // covers S3-ENTITY-37, S3-ENTITY-38
  it('a prompt is due only while its prompt-{topic} flag is not stored', () => {
    expect(isPromptDue('notice')).toBe(true);
    markPromptSeen('notice');
    expect(localStorage.getItem('prompt-notice')).not.toBeNull();
    expect(isPromptDue('notice')).toBe(false);
    expect(isPromptDue('other')).toBe(true);
  });
});
