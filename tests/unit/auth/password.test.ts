// SPEC §11: passwords are stored as salted scrypt hashes and verified in constant time.
import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../../../src/server/auth/password';

describe('password hashing (SPEC §11)', () => {
  it('verifies the password it hashed', async () => {
    expect(await verifyPassword('correct horse battery', await hashPassword('correct horse battery'))).toBe(true);
  });

  it('refuses a different password', async () => {
    expect(await verifyPassword('correct horse batterY', await hashPassword('correct horse battery'))).toBe(false);
  });

  it('encodes the parameters and a random salt, never the password', async () => {
    const a = await hashPassword('same password');
    const b = await hashPassword('same password');
    expect(a).toMatch(/^scrypt\$\d+\$\d+\$\d+\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('same password');
  });

  it('treats a malformed or foreign encoding as a mismatch instead of throwing', async () => {
    for (const bad of ['', 'plain', 'bcrypt$2b$10$abc', 'scrypt$3$8$1$c2FsdA$aGFzaA', 'scrypt$16384$8$1$$']) {
      expect(await verifyPassword('x', bad)).toBe(false);
    }
  });
});
