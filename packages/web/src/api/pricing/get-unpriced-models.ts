import { useQuery } from '@tanstack/react-query';
import { apiData } from '../../lib/api';
import { pricingKey } from './get-pricing';

export const unpricedModelsKey = [...pricingKey, 'unpriced'] as const;

/** GET /api/pricing/unpriced (admin): models enabled channels serve that have no ratio (billed at the default 30). */
export const getUnpricedModels = () => apiData<string[]>('/api/pricing/unpriced', { quiet: true });

/** Asked again whenever a screen showing it mounts (a channel or a ratio may have changed meanwhile). */
export function useUnpricedModels() {
  return useQuery({ queryKey: unpricedModelsKey, queryFn: getUnpricedModels, staleTime: 0 });
}

/** The given model names without a ratio (GET /api/pricing/unpriced?models=…), for the channel form's hint. */
export const getUnpricedAmong = (models: string[]) => apiData<string[]>(`/api/pricing/unpriced?models=${encodeURIComponent(models.join(','))}`, { quiet: true });

export function useUnpricedAmong(models: string[]) {
  const names = [...new Set(models)].sort();
  return useQuery({ queryKey: [...unpricedModelsKey, names], queryFn: () => getUnpricedAmong(names), enabled: names.length > 0, staleTime: 60_000 });
}
