// An account row as SQLite and PostgreSQL return it. Its own module below the features: authentication (http/) carries
// the authenticated account on every request, and the accounts store (accounts/), which alone reads and writes the
// table, maps it to the wire type.
export interface AccountRow {
  id: string;
  name: string | null;
  currency: string;
  balance_minor: number | string;
  reserved_minor: number | string;
  credit_limit_minor: number | string;
  overdraft_enabled: boolean | number;
  tariff_plan: string;
  blocked: boolean | number;
  created_at: string | Date;
  updated_at: string | Date;
}
