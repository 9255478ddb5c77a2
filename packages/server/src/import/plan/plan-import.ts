import { randomAlphanumeric } from '../../lib/random.js';
import { usernameKey } from '../../storage/username-key.js';
import type { ChannelValues, MappedChannel } from '../map/map-channels.js';
import type { MergeMode } from '../map/map-options.js';
import type { MappedRedemption, RedemptionValues } from '../map/map-redemptions.js';
import type { MappedToken, TokenValues } from '../map/map-tokens.js';
import type { MappedUser, UserValues } from '../map/map-users.js';
import type { ImportReport } from '../report/import-report.js';
import type { TargetState } from '../write/read-target.js';

export type WithId<T> = T & { id: number };

/** What a real run writes, decided before anything is written (a dry run prints it instead). */
export interface ImportPlan {
  /** The fresh root account the source's users replace. */
  deleteUserId?: number;
  users: { insert: Array<WithId<UserValues & { username_key: string }>>; update: Array<WithId<UserValues & { username_key: string }>> };
  tokens: { insert: Array<WithId<TokenValues>>; update: Array<WithId<TokenValues>> };
  channels: { insert: Array<WithId<ChannelValues>>; update: Array<WithId<ChannelValues>> };
  redemptions: { insert: Array<WithId<RedemptionValues>>; update: Array<WithId<RedemptionValues>> };
  options: Map<string, string>;
  /** Source id -> id here, for references (inviter, owner, logs). */
  ids: { users: Map<number, number>; tokens: Map<number, number>; channels: Map<number, number>; channelNames: Map<number, string> };
  /** Source quota of the users written (inserted or overwritten). */
  importedQuota: number;
}

export interface PlanInput {
  users: MappedUser[];
  tokens: MappedToken[];
  channels: MappedChannel[];
  redemptions: MappedRedemption[];
  options: Map<string, string>;
}

/**
 * Ids: into an empty target the source's own ids are kept (references stay as they were); into a target with rows,
 * new rows are numbered after its highest id. Collisions (same username whatever its case, same key) are skipped or
 * overwritten as --merge says.
 */
export function planImport(input: PlanInput, target: TargetState, mode: MergeMode, report: ImportReport): ImportPlan {
  const keepIds = target.empty;
  const plan: ImportPlan = {
    deleteUserId: target.freshRootId,
    users: { insert: [], update: [] },
    tokens: { insert: [], update: [] },
    channels: { insert: [], update: [] },
    redemptions: { insert: [], update: [] },
    options: input.options,
    ids: { users: new Map(), tokens: new Map(), channels: new Map(), channelNames: new Map() },
    importedQuota: 0,
  };
  const liveTargetUsers = target.users.filter((u) => u.id !== target.freshRootId);

  // Users.
  const targetByKey = new Map(liveTargetUsers.map((u) => [u.username_key, u]));
  const sourceKeys = new Map<string, MappedUser>();
  const affCodes = new Set(liveTargetUsers.map((u) => u.aff_code));
  const accessTokens = new Set(liveTargetUsers.flatMap((u) => (u.access_token ? [u.access_token] : [])));
  let nextUser = target.maxIds.users + 1;
  for (const user of [...input.users].sort((a, b) => a.sourceId - b.sourceId)) {
    const values = { ...user.values };
    let key = usernameKey(values.username);
    const twin = sourceKeys.get(key);
    if (twin) {
      const renamed = `${values.username.slice(0, 50)}#${user.sourceId}`;
      report.change('users', user.label, `用户名与 ${twin.label} 仅大小写不同（本网关视为同一账户），改名为 "${renamed}"，请用新用户名登录`);
      values.username = renamed;
      key = usernameKey(renamed);
    }
    sourceKeys.set(key, user);
    const existing = targetByKey.get(key);
    if (existing && mode !== 'overwrite') {
      plan.ids.users.set(user.sourceId, existing.id);
      report.skip('users', user.label, `目标已有同名用户 #${existing.id} ${existing.username}（--merge=skip），其令牌归入该用户`);
      report.quota.sourceSkipped += values.quota;
      continue;
    }
    if (!values.aff_code || affCodes.has(values.aff_code)) {
      const code = uniqueCode(affCodes);
      if (values.aff_code) report.change('users', user.label, `邀请码 ${values.aff_code} 与已有账户重复，改为 ${code}`);
      values.aff_code = code;
    }
    affCodes.add(values.aff_code);
    if (values.access_token && accessTokens.has(values.access_token)) {
      report.change('users', user.label, '系统访问令牌与已有账户重复，已清空（用户可在个人设置中重新生成）');
      values.access_token = null;
    }
    if (values.access_token) accessTokens.add(values.access_token);
    const id = existing ? existing.id : keepIds ? user.sourceId : nextUser++;
    plan.ids.users.set(user.sourceId, id);
    plan.importedQuota += values.quota;
    (existing ? plan.users.update : plan.users.insert).push({ ...values, username_key: key, id });
  }
  for (const row of [...plan.users.insert, ...plan.users.update]) row.inviter_id = plan.ids.users.get(row.inviter_id) ?? 0;
  report.count('users', 'inserted', plan.users.insert.length);
  report.count('users', 'updated', plan.users.update.length);

  // Tokens.
  const seenKeys = new Set<string>();
  let nextToken = target.maxIds.tokens + 1;
  for (const token of input.tokens) {
    const owner = plan.ids.users.get(token.values.user_id);
    if (owner === undefined) {
      report.skip('tokens', token.label, `所属用户 #${token.values.user_id} 不在源数据库中`);
      continue;
    }
    if (seenKeys.has(token.values.key)) {
      report.skip('tokens', token.label, '与源数据库中另一个令牌的密钥相同');
      continue;
    }
    seenKeys.add(token.values.key);
    const existing = target.tokenKeys.get(token.values.key);
    if (existing !== undefined && mode !== 'overwrite') {
      plan.ids.tokens.set(token.sourceId, existing);
      report.skip('tokens', token.label, '目标已有相同密钥的令牌（--merge=skip）');
      continue;
    }
    const id = existing ?? (keepIds ? token.sourceId : nextToken++);
    plan.ids.tokens.set(token.sourceId, id);
    (existing !== undefined ? plan.tokens.update : plan.tokens.insert).push({ ...token.values, user_id: owner, id });
  }
  report.count('tokens', 'inserted', plan.tokens.insert.length);
  report.count('tokens', 'updated', plan.tokens.update.length);

  // Channels: the same type, key and base URL is the same channel.
  const channelKey = (c: { type: number; key: string; base_url: string }) => `${c.type}\u0000${c.key}\u0000${c.base_url}`;
  const targetChannels = new Map(target.channels.map((c) => [channelKey(c), c.id]));
  const maxSourceChannel = input.channels.reduce((m, c) => Math.max(m, c.sourceId), 0);
  let nextChannel = keepIds ? maxSourceChannel + 1 : target.maxIds.channels + 1;
  for (const channel of input.channels) {
    const existing = targetChannels.get(channelKey(channel.values));
    if (existing !== undefined && mode !== 'overwrite') {
      if (channel.part === 0) plan.ids.channels.set(channel.sourceId, existing);
      report.skip('channels', channel.label, `目标已有类型、密钥和 Base URL 都相同的渠道 #${existing}（--merge=skip）`);
      continue;
    }
    const id = existing ?? (keepIds && channel.part === 0 ? channel.sourceId : nextChannel++);
    if (channel.part === 0) {
      plan.ids.channels.set(channel.sourceId, id);
      plan.ids.channelNames.set(channel.sourceId, channel.values.name);
    }
    (existing !== undefined ? plan.channels.update : plan.channels.insert).push({ ...channel.values, id });
  }
  report.count('channels', 'inserted', plan.channels.insert.length);
  report.count('channels', 'updated', plan.channels.update.length);

  // Redemption codes.
  let nextCode = target.maxIds.redemptions + 1;
  for (const code of input.redemptions) {
    const existing = target.redemptionKeys.get(code.values.key);
    if (existing !== undefined && mode !== 'overwrite') {
      report.skip('redemptions', code.label, '目标已有相同的兑换码（--merge=skip）');
      continue;
    }
    const values = { ...code.values, user_id: plan.ids.users.get(code.values.user_id) ?? 0, used_user_id: plan.ids.users.get(code.values.used_user_id) ?? 0 };
    const id = existing ?? (keepIds ? code.sourceId : nextCode++);
    (existing !== undefined ? plan.redemptions.update : plan.redemptions.insert).push({ ...values, id });
  }
  report.count('redemptions', 'inserted', plan.redemptions.insert.length);
  report.count('redemptions', 'updated', plan.redemptions.update.length);
  return plan;
}

function uniqueCode(taken: Set<string>): string {
  for (;;) {
    const code = randomAlphanumeric(8);
    if (!taken.has(code)) return code;
  }
}
