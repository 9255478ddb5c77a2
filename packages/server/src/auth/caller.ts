/** The caller of an /api route, as the auth layer resolved it (authenticate.ts). */
export interface Caller {
  id: number;
  role: number;
  username: string;
}
