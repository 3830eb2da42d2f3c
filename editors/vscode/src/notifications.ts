// The server sends its own notifications (faultline/status,
// faultline/rankingChanged) only to a client that asks for them in its
// experimental capabilities, so that generic LSP clients see none. The same
// capability carries VS Code's verdict on the workspace's trust: the server
// takes it only from there, because capabilities are computed here while
// settings may come from the workspace's own .vscode/settings.json.
import type { ClientCapabilities, FeatureState, StaticFeature } from 'vscode-languageclient/node';

/** faultlineExperimental is the "faultline" experimental capability. */
export function faultlineExperimental(trustedWorkspace: boolean) {
  return {
    statusNotification: true,
    rankingChangedNotification: true,
    trustedWorkspace,
  };
}

export class FaultlineNotifications implements StaticFeature {
  /** trusted is whether VS Code trusts the workspace (vscode.workspace.isTrusted). */
  constructor(private readonly trusted: boolean) {}

  getState(): FeatureState {
    return { kind: 'static' };
  }

  fillClientCapabilities(capabilities: ClientCapabilities): void {
    const experimental = (capabilities.experimental ?? {}) as Record<string, unknown>;
    capabilities.experimental = { ...experimental, faultline: faultlineExperimental(this.trusted) };
  }

  initialize(): void {}

  clear(): void {}
}
