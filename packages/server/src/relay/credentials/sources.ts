import type { CredentialKind } from '../providers/types.js';
import { awsCredentialSource } from './aws-credentials.js';
import type { CredentialSource } from './credential-resolver.js';

/** One line per credential kind a provider may declare (providers/types.ts CredentialKind). */
export const CREDENTIAL_SOURCES: Partial<Record<CredentialKind, CredentialSource>> = {
  aws: awsCredentialSource,
};
