// The built-in agent runner's settings (config.ts) — the command is an argv given as a JSON array
// (never a shell line), refused with one line when it is anything else — and the environment the command gets.
import { describe, expect, it } from 'vitest';
import { agentCommandEnv, ConfigError, loadConfig } from '../../src/server/config';

describe('TETHER_AGENT_COMMAND and TETHER_AGENT_TIMEOUT_MS', () => {
  it('default to no command and a 30 minute timeout', () => {
    expect(loadConfig({}).agents).toEqual({ command: null, timeoutMs: 1_800_000 });
  });

  it('read the command as a JSON array of arguments', () => {
    const c = loadConfig({
      TETHER_AGENT_COMMAND: '["/usr/local/bin/run-agent", "--task", "stdin"]',
      TETHER_AGENT_TIMEOUT_MS: '60000',
    });
    expect(c.agents).toEqual({ command: ['/usr/local/bin/run-agent', '--task', 'stdin'], timeoutMs: 60_000 });
  });

  it.each(['run-agent --fast', '[]', '[""]', '["a", 1]', '{"cmd": "x"}', '["a\\u0000b"]'])(
    'refuse %j with one line naming the variable',
    (value) => {
      expect(() => loadConfig({ TETHER_AGENT_COMMAND: value })).toThrow(ConfigError);
      expect(() => loadConfig({ TETHER_AGENT_COMMAND: value })).toThrow(
        /^TETHER_AGENT_COMMAND: must be a JSON array of strings/,
      );
    },
  );

  it('refuse a timeout that is not a whole number', () => {
    expect(() => loadConfig({ TETHER_AGENT_TIMEOUT_MS: 'soon' })).toThrow(
      /^TETHER_AGENT_TIMEOUT_MS: must be a whole number/,
    );
  });
});

describe('agentCommandEnv', () => {
  it('passes only a minimal environment plus what the launch adds', () => {
    const env = agentCommandEnv({ TETHER_TASK_ID: 't1' });
    const allowed = new Set(['PATH', 'HOME', 'USER', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR', 'TETHER_TASK_ID']);
    expect(Object.keys(env).filter((k) => !allowed.has(k))).toEqual([]);
    expect(env.TETHER_TASK_ID).toBe('t1');
    expect(env.PATH).toBe(process.env.PATH);
  });
});
