import { describe, expect, it } from 'vitest';
import { signTc3 } from './tc3-sign.js';

/**
 * Tencent's worked example of signature v3 (CVM DescribeInstances, "签名方法 v3" / "Signature v3"): SecretId
 * AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE, SecretKey Gu5t9xGARNpq86cd98joQYCN3EXAMPLE, timestamp 1551113065 (2019-02-25 in
 * UTC, 2019-02-26 in Beijing), this exact body.
 */
const EXAMPLE = {
  secretId: 'AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE',
  secretKey: 'Gu5t9xGARNpq86cd98joQYCN3EXAMPLE',
  service: 'cvm',
  timestamp: 1551113065,
  body: '{"Limit": 1, "Filters": [{"Values": ["\\u672a\\u547d\\u540d"], "Name": "instance-name"}]}',
};

describe('TC3-HMAC-SHA256', () => {
  it("reproduces the documented signature (content-type and host signed)", () => {
    const signed = signTc3({ ...EXAMPLE, headers: { 'Content-Type': 'application/json; charset=utf-8', Host: 'cvm.tencentcloudapi.com' } });
    expect(signed.canonicalRequest).toBe('POST\n/\n\ncontent-type:application/json; charset=utf-8\nhost:cvm.tencentcloudapi.com\n\ncontent-type;host\n35e9c5b0e3ae67532d3c9f17ead6c90222632e5b1ff7f6e89887f1398934f064');
    expect(signed.credentialScope).toBe('2019-02-25/cvm/tc3_request');
    expect(signed.authorization).toBe(
      'TC3-HMAC-SHA256 Credential=AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE/2019-02-25/cvm/tc3_request, SignedHeaders=content-type;host, Signature=72e494ea809ad7a8c8f7a4507b9bddcbaa8e581f516e8da2f66e2c5a96525168',
    );
  });

  it('reproduces the documented canonical request hash with the action header signed too (its value in lower case)', () => {
    const signed = signTc3({ ...EXAMPLE, headers: { 'content-type': 'application/json; charset=utf-8', host: 'cvm.tencentcloudapi.com', 'X-TC-Action': 'DescribeInstances' } });
    expect(signed.signedHeaders).toBe('content-type;host;x-tc-action');
    expect(signed.canonicalRequest.split('\n').slice(4, 7)).toEqual(['host:cvm.tencentcloudapi.com', 'x-tc-action:describeinstances', '']);
    expect(signed.stringToSign).toBe('TC3-HMAC-SHA256\n1551113065\n2019-02-25/cvm/tc3_request\n7019a55be8395899b900fb5564e4200d984910f34794a27cb3fb7d10ff6a1e84');
  });

  it('scopes the credential to the UTC date of the timestamp, and any changed byte changes the signature', () => {
    const base = { ...EXAMPLE, service: 'hunyuan', headers: { 'content-type': 'application/json', host: 'hunyuan.tencentcloudapi.com' } };
    expect(signTc3({ ...base, timestamp: 1551139199 }).credentialScope).toBe('2019-02-25/hunyuan/tc3_request');
    expect(signTc3({ ...base, timestamp: 1551139200 }).credentialScope).toBe('2019-02-26/hunyuan/tc3_request');
    const one = signTc3(base).signature;
    expect(signTc3({ ...base, body: `${EXAMPLE.body} ` }).signature).not.toBe(one);
    expect(signTc3({ ...base, secretKey: 'other' }).signature).not.toBe(one);
    expect(signTc3({ ...base, headers: { ...base.headers, host: 'hunyuan.tencentcloudapi.com:8443' } }).signature).not.toBe(one);
  });
});
