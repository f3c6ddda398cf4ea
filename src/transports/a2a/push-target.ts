/**
 * Where a push notification may go (issue 14 item 2, docs/decisions/a2a.md A2A-12): a webhook
 * URL is a server-side request the caller chooses, so it is checked before a config is stored
 * (SSRF) by the node's outbound URL policy (`../outbound-url.ts`): `http:` or `https:` only, no
 * credentials in the URL, and the host either loopback (a dev node) or on `a2a.push.allowHosts`.
 */
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import { checkOutboundUrl, type OutboundUrlPolicy } from '../outbound-url.js';

/** Which webhook hosts a node delivers to. */
export type PushTargetPolicy = OutboundUrlPolicy;

/**
 * Checks a webhook URL against `policy`.
 * @throws RequestMalformedError naming what is wrong and how to allow the host.
 */
export function checkPushUrl(text: string, policy: PushTargetPolicy): URL {
  const checked = checkOutboundUrl(text, policy, {
    what: 'the push notification url',
    requests: 'push notifications',
    configKey: 'a2a.push.allowHosts',
  });
  if ('problem' in checked) throw new RequestMalformedError(checked.problem);
  return checked.url;
}
