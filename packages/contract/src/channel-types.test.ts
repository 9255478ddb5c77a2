import { describe, expect, it } from 'vitest';
import { CHANNEL_MODELS } from './channel-models.js';
import { CHANNEL_TYPES, channelTypeInfo } from './channel-types.js';

describe('channel type catalogue (docs/console.md §3)', () => {
  // covers S3-CHANNELTYPES-01, S3-CHANNELTYPES-02, S3-CHANNELTYPES-03, S3-CHANNELTYPES-04
  it('lists every type with a number, a display text and a colour, grouped as the spec groups them', () => {
    const byCategory = (category: string) => CHANNEL_TYPES.filter((t) => t.category === category).map((t) => t.value);
    expect(byCategory('main')).toEqual([1, 14, 33, 3, 11, 24, 28, 41, 40, 15, 17, 18, 16, 19, 25, 23, 26, 27, 29, 30, 31, 32, 34, 35, 36, 37, 38, 39, 42, 43, 8]);
    expect(byCategory('knowledge')).toEqual([22, 21]);
    expect(byCategory('proxy')).toEqual([20, 2, 5, 7, 10, 4, 6, 9, 12, 13]);
    for (const type of CHANNEL_TYPES) {
      expect(type.text.length).toBeGreaterThan(0);
      expect(type.color.length).toBeGreaterThan(0);
    }
    expect(new Set(CHANNEL_TYPES.map((t) => t.value)).size).toBe(CHANNEL_TYPES.length);
    expect(channelTypeInfo(1).text).toBe('OpenAI');
    expect(channelTypeInfo(999).text).toBe('未知类型');
  });

  // covers S3-CHANNELTYPES-05
  it('type 43 has no models; nor has Coze (34), whose models are the admin\'s own bots (bot-<Bot ID>); every other type has a model list', () => {
    expect(CHANNEL_MODELS[43]).toEqual([]);
    expect(CHANNEL_MODELS[34]).toEqual([]);
    for (const type of CHANNEL_TYPES.filter((t) => t.value !== 43 && t.value !== 34)) expect(CHANNEL_MODELS[type.value]?.length, String(type.value)).toBeGreaterThan(0);
  });
});
