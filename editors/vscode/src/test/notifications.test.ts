import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { FaultlineNotifications } from '../notifications';

test('asks for the server notifications, states workspace trust and keeps other experimental capabilities', () => {
  const caps: { experimental?: unknown } = { experimental: { other: 1 } };
  new FaultlineNotifications(true).fillClientCapabilities(caps);
  assert.deepEqual(caps.experimental, {
    other: 1,
    faultline: { statusNotification: true, rankingChangedNotification: true, trustedWorkspace: true },
  });
  const bare: { experimental?: unknown } = {};
  new FaultlineNotifications(false).fillClientCapabilities(bare);
  assert.deepEqual(bare.experimental, {
    faultline: { statusNotification: true, rankingChangedNotification: true, trustedWorkspace: false },
  });
});
