import { describe, expect, it } from 'vitest';
import { takeBackHandedOver } from './handedOverEnvironment.js';

describe('takeBackHandedOver', () => {
  it('puts the CA bundle back under its own name and drops the carrier', () => {
    const env: NodeJS.ProcessEnv = { PATH: '/bin', LOADOUT_NODE_EXTRA_CA_CERTS: '/etc/ssl/a b.pem' };
    takeBackHandedOver(env);
    expect(env).toEqual({ PATH: '/bin', NODE_EXTRA_CA_CERTS: '/etc/ssl/a b.pem' });
  });

  it("keeps the user's own value when both arrive", () => {
    const env: NodeJS.ProcessEnv = { NODE_EXTRA_CA_CERTS: '/mine.pem', LOADOUT_NODE_EXTRA_CA_CERTS: '/carried.pem' };
    takeBackHandedOver(env);
    expect(env).toEqual({ NODE_EXTRA_CA_CERTS: '/mine.pem' });
  });

  it('changes nothing when nothing was handed over', () => {
    const env: NodeJS.ProcessEnv = { PATH: '/bin' };
    takeBackHandedOver(env);
    expect(env).toEqual({ PATH: '/bin' });
  });
});
