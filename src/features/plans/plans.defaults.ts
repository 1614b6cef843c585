import type { PlanDef } from './plans.schemas'

const GB = 1024 ** 3
const unmetered = { queries_per_1000: null, storage_gb_month: null }

/**
 * The plans a server offers when its operator names no plans file (`ENGRAM_PLANS_FILE`): the free
 * tier open sign-up lands on, the legacy `beta` of invite sign-up (unlimited, as it always was), two
 * paid tiers and a metered `enterprise` that is negotiated, so not public.
 */
export const DEFAULT_PLANS: PlanDef[] = [
  {
    id: 'free',
    name: 'Free',
    prices: { currency: 'usd', month: 0, year: 0 },
    caps: { bases: 1, documents: 100, storage_bytes: 1 * GB, queries_per_month: 1000, seats: 1, api_keys: 2 },
    rate_card: unmetered,
    public: true,
  },
  {
    id: 'beta',
    name: 'Beta',
    prices: { currency: 'usd', month: 0, year: 0 },
    caps: {
      bases: null,
      documents: null,
      storage_bytes: null,
      queries_per_month: null,
      seats: null,
      api_keys: null,
    },
    rate_card: unmetered,
    public: false,
  },
  {
    id: 'team',
    name: 'Team',
    prices: { currency: 'usd', month: 49, year: 490 },
    caps: {
      bases: 5,
      documents: 5000,
      storage_bytes: 20 * GB,
      queries_per_month: 20_000,
      seats: 10,
      api_keys: 10,
    },
    rate_card: unmetered,
    public: true,
  },
  {
    id: 'business',
    name: 'Business',
    prices: { currency: 'usd', month: 199, year: 1990 },
    caps: {
      bases: 25,
      documents: 50_000,
      storage_bytes: 200 * GB,
      queries_per_month: 200_000,
      seats: 50,
      api_keys: 50,
    },
    rate_card: unmetered,
    public: true,
  },
  {
    id: 'enterprise',
    name: 'Enterprise',
    prices: { currency: 'usd', month: 1000, year: 10_000 },
    caps: {
      bases: null,
      documents: null,
      storage_bytes: null,
      queries_per_month: null,
      seats: null,
      api_keys: null,
    },
    rate_card: { queries_per_1000: 2, storage_gb_month: 0.5 },
    public: false,
  },
]
