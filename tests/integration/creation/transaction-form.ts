// The transaction form of the create protocol (the creation store SQLite runs), built over a PostgreSQL database:
// the product runs only the one-statement form there, so tests that hold the two to the same rows build this one
// themselves instead of asking the configuration for it.
import { sqlDialect } from '../../../src/server/db/drivers';
import { CreationStore } from '../../../src/server/db/repositories/creation-store';
import { Store } from '../../../src/server/db/store';
import type { Db } from '../../../src/server/db/types';
import type { Services } from '../../../src/server/services';
import { testServices } from '../../support/fixtures';

class TransactionFormStore extends Store {
  override readonly creation = new CreationStore(this.driver, sqlDialect(this.driver.dialect), (fn) =>
    this.transaction(fn),
  );
}

/** Services over `db` whose store creates in the transaction form, whatever the dialect. */
export function transactionFormServices(db: Db, overrides: Partial<Services> = {}): Promise<Services> {
  return testServices(db, { ...overrides, store: new TransactionFormStore(db) });
}
