/** What every page component receives: its route's decoded params (routes.ts maps paths to pages). */
export interface PageProps {
  readonly params: Record<string, string>;
}
