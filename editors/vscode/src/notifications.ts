// The server sends its own notifications (faultline/status,
// faultline/rankingChanged) only to a client that asks for them in its
// experimental capabilities, so that generic LSP clients see none.
import type { ClientCapabilities, FeatureState, StaticFeature } from 'vscode-languageclient/node';

export const FAULTLINE_EXPERIMENTAL = {
  statusNotification: true,
  rankingChangedNotification: true,
};

export class FaultlineNotifications implements StaticFeature {
  getState(): FeatureState {
    return { kind: 'static' };
  }

  fillClientCapabilities(capabilities: ClientCapabilities): void {
    const experimental = (capabilities.experimental ?? {}) as Record<string, unknown>;
    capabilities.experimental = { ...experimental, faultline: FAULTLINE_EXPERIMENTAL };
  }

  initialize(): void {}

  clear(): void {}
}
