import type { CredentialKind } from '../providers/types.js';
import { awsCredentialSource } from './aws-credentials.js';
import { baiduOAuthSource } from './baidu-oauth.js';
import type { CredentialSource } from './credential-resolver.js';
import { googleServiceAccountSource } from './google-service-account.js';

/** One line per credential kind a provider may declare (providers/types.ts CredentialKind). */
export const CREDENTIAL_SOURCES: Partial<Record<CredentialKind, CredentialSource>> = {
  'google-service-account': googleServiceAccountSource,
  aws: awsCredentialSource,
  'baidu-oauth': baiduOAuthSource,
};
