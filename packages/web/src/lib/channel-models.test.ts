import { beforeEach, describe, expect, it } from 'vitest';
import { mockApi } from '../test-support';
import { channelModelsOf, loadChannelModels, resetChannelModelsMemory } from './channel-models';

const perType = { 1: ['gpt-4o', 'gpt-4o-mini'], 14: ['claude-3-haiku'], 43: [] };

beforeEach(() => {
  localStorage.clear();
  resetChannelModelsMemory();
});

describe('models per channel type (docs/console.md §7)', () => {
  // covers S7-API-36, S7-API-37
  it('GET /api/models maps each type to its model names and is kept in memory and in local storage under channel_models', async () => {
    const calls = mockApi({ 'GET /api/models': () => ({ success: true, message: '', data: perType }) });
    await loadChannelModels();
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual(['GET /api/models']);
    expect(JSON.parse(localStorage.getItem('channel_models') ?? 'null')).toEqual(perType);
    expect(channelModelsOf(1)).toEqual(['gpt-4o', 'gpt-4o-mini']);
    expect(channelModelsOf(14)).toEqual(['claude-3-haiku']);
    expect(channelModelsOf(43)).toEqual([]);
  });

  // covers S7-API-37
  it('a refused call changes neither copy', async () => {
    localStorage.setItem('channel_models', JSON.stringify({ 1: ['kept'] }));
    mockApi({ 'GET /api/models': () => ({ success: false, message: 'no' }) });
    await loadChannelModels();
    expect(localStorage.getItem('channel_models')).toBe(JSON.stringify({ 1: ['kept'] }));
    expect(channelModelsOf(1)).toEqual(['kept']);
  });

  // covers S7-API-38
  it('a lookup reads memory first, then local storage', async () => {
    mockApi({ 'GET /api/models': () => ({ success: true, message: '', data: perType }) });
    await loadChannelModels();
    localStorage.setItem('channel_models', JSON.stringify({ 1: ['from-storage'] }));
    expect(channelModelsOf(1)).toEqual(['gpt-4o', 'gpt-4o-mini']);
    resetChannelModelsMemory();
    expect(channelModelsOf(1)).toEqual(['from-storage']);
  });

  // covers S7-API-39
  it('a missing type, an empty cache or an unreadable cache give an empty list', () => {
    expect(channelModelsOf(1)).toEqual([]);
    localStorage.setItem('channel_models', '{oops');
    expect(channelModelsOf(1)).toEqual([]);
    resetChannelModelsMemory();
    localStorage.setItem('channel_models', JSON.stringify(perType));
    expect(channelModelsOf(99)).toEqual([]);
  });
});
