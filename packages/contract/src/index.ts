// First, before any schema is built (see the module).
import './browser-config.js';
export * from './roles.js';
export * from './providers.js';
export * from './channel-types.js';
export * from './options.js';
export * from './users.js';
export * from './tokens.js';
export * from './channels.js';
export * from './channel-models.js';
export * from './logs.js';
export * from './money.js';
export * from './redemptions.js';
export * from './input.js';
export * from './username.js';
export * from './limits.js';
export * from './dashboard.js';
export * from './pricing.js';
export * from './query.js';
