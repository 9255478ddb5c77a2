import { useQuery } from '@tanstack/react-query';
import { apiData } from '../../lib/api';

export const availableModelsKey = ['available-models'] as const;

/** GET /api/user/available_models: the models the caller's group may use. */
export const getAvailableModels = () => apiData<string[]>('/api/user/available_models', { quiet: true });

export function useAvailableModels() {
  return useQuery({ queryKey: availableModelsKey, queryFn: getAvailableModels, staleTime: 60_000 });
}
