import { useMutation } from '@tanstack/react-query';
import { API_BASE, api } from '../../lib/api';
import { downloadBlob } from '../../lib/download';

/**
 * GET /api/dashboard/self/export or /api/dashboard/export (admin): the range as a CSV file, saved through the
 * browser's download under the server's file name. A refusal comes back as the usual JSON envelope and is
 * shown like any other.
 */
export async function exportDashboard(all: boolean, query: string): Promise<string | undefined> {
  const path = `/api/dashboard/${all ? '' : 'self/'}export?${query}`;
  const response = await fetch(`${API_BASE}${path}`, { credentials: 'same-origin' });
  if (!response.ok || !(response.headers.get('content-type') ?? '').includes('text/csv')) {
    // Not a file: read it again through the request client, which shows the refusal or the HTTP error.
    await api(path);
    return undefined;
  }
  const filename = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? 'usage.csv';
  downloadBlob(filename, await response.blob());
  return filename;
}

export function useExportDashboard() {
  return useMutation({ mutationFn: ({ all, query }: { all: boolean; query: string }) => exportDashboard(all, query) });
}
