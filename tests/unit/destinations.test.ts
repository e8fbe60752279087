// SPEC §9: the destination policy (src/server/domain/outbound/destinations.ts) — which webhook URLs are refused at
// registration, which resolved addresses a delivery may connect to, and what TETHER_WEBHOOK_ALLOWED_NETWORKS lets
// through. The HTTP side (nothing is sent to a refused address) is tests/integration/events/webhook-destinations.test.ts.
import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/server/config';
import {
  DestinationPolicy,
  DestinationRefusedError,
  NOT_PUBLIC_REFUSAL,
  type ResolveAll,
} from '../../src/server/domain/outbound/destinations';

const byDefault = new DestinationPolicy();

describe('registration (urlRefusal)', () => {
  it.each([
    'http://127.0.0.1:5432/',
    'http://127.1/',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://0x7f000001/',
    'http://0177.0.0.1/',
    'http://%31%32%37.0.0.1/',
    'http://0.0.0.0/',
    'http://0/',
    'http://[::]/',
    'http://[::1]/',
    'http://[0:0:0:0:0:0:0:1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[::ffff:169.254.169.254]/',
    'http://[::127.0.0.1]/',
    'http://localhost/',
    'http://LocalHost./',
    'http://x.localhost/',
    'http://169.254.169.254/',
    'http://10.0.0.1/',
    'http://172.31.255.255/',
    'http://192.168.0.1/',
    'http://100.64.0.1/',
    'http://100.127.255.255/',
    'http://224.0.0.251/',
    'http://255.255.255.255/',
    'http://[fc00::1]/',
    'http://[fd12:3456::1]/',
    'http://[fe80::1]/',
    'http://[fec0::1]/',
    'http://[ff02::1]/',
  ])('refuses %s', (url) => {
    expect(byDefault.urlRefusal(url)).toBe(NOT_PUBLIC_REFUSAL);
  });

  it.each([
    'https://hooks.example.com/x',
    'http://8.8.8.8/',
    'http://100.128.0.1/',
    'http://172.32.0.1/',
    'http://[2606:4700::1111]/',
    'http://[::ffff:8.8.8.8]/',
    'http://127.0.0.1.example.com/',
  ])('accepts %s (a name is checked when it is resolved, at delivery)', (url) => {
    expect(byDefault.urlRefusal(url)).toBeNull();
  });

  it('refuses what is not an http(s) URL', () => {
    expect(byDefault.urlRefusal('ftp://example.com/')).toBe('must be an http(s) URL');
    expect(byDefault.urlRefusal('http://')).toBe('must be an http(s) URL');
  });

  it('lets through exactly the networks TETHER_WEBHOOK_ALLOWED_NETWORKS lists, IPv4-mapped forms included', () => {
    const config = loadConfig({ TETHER_WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8, ::1/128,10.1.0.0/16' });
    const policy = new DestinationPolicy(config.webhooks.allowedNetworks);
    for (const url of [
      'http://127.1/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::1]/',
      'http://localhost:3000/',
      'http://10.1.2.3/',
    ]) {
      expect([url, policy.urlRefusal(url)]).toEqual([url, null]);
    }
    for (const url of ['http://10.2.0.1/', 'http://169.254.169.254/', 'http://[fd00::1]/', 'http://0.0.0.0/']) {
      expect([url, policy.urlRefusal(url)]).toEqual([url, NOT_PUBLIC_REFUSAL]);
    }
  });
});

describe('delivery (lookup: every resolved address is checked)', () => {
  const resolver =
    (answers: string[]): ResolveAll =>
    (_host, _options, callback) =>
      callback(
        null,
        answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
      );

  function lookup(policy: DestinationPolicy, all: boolean): Promise<{ err: unknown; result: unknown }> {
    return new Promise((done) =>
      policy.lookup('hooks.test', { all }, (err: unknown, address: unknown, family?: unknown) =>
        done({ err, result: all ? address : [address, family] }),
      ),
    );
  }

  it('hands back public addresses, in both lookup forms', async () => {
    const policy = new DestinationPolicy([], resolver(['93.184.215.14', '2606:2800:21f::1']));
    expect(await lookup(policy, true)).toEqual({
      err: null,
      result: [
        { address: '93.184.215.14', family: 4 },
        { address: '2606:2800:21f::1', family: 6 },
      ],
    });
    expect(await lookup(policy, false)).toEqual({ err: null, result: ['93.184.215.14', 4] });
  });

  it.each([[['127.0.0.1']], [['::ffff:10.0.0.1']], [['93.184.215.14', '169.254.169.254']], [[]]])(
    'refuses %j',
    async (answers) => {
      const { err } = await lookup(new DestinationPolicy([], resolver(answers)), true);
      expect(err).toBeInstanceOf(DestinationRefusedError);
    },
  );

  it('refuses a name that does not resolve exactly like one that resolves inside', async () => {
    const missing: ResolveAll = (_h, _o, callback) =>
      callback(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }), [] as LookupAddress[]);
    const { err } = await lookup(new DestinationPolicy([], missing), false);
    expect(err).toBeInstanceOf(DestinationRefusedError);
  });

  it('lets an allowed network through', async () => {
    const policy = new DestinationPolicy(
      [{ address: '127.0.0.0', prefix: 8, family: 'ipv4' }],
      resolver(['127.0.0.1']),
    );
    expect(await lookup(policy, false)).toEqual({ err: null, result: ['127.0.0.1', 4] });
  });
});
