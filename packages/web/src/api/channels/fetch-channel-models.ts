import type { FetchModelsInput } from '@model-relay/contract';
import { useMutation } from '@tanstack/react-query';
import { apiData } from '../../lib/api';

/** POST /api/channel/fetch_models: the models the upstream lists for the key in the form (its refusal is toasted). */
export const fetchChannelModels = (input: FetchModelsInput) => apiData<string[]>('/api/channel/fetch_models', { method: 'POST', body: input });

export function useFetchChannelModels() {
  return useMutation({ mutationFn: fetchChannelModels });
}
