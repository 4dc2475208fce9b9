/**
 * Removes credentials that are part of a URL anywhere in `text`: everything before the last `@`
 * of a URL's authority. The one exception is a plain ssh user without a password
 * (`ssh://git@host/…`), which names an account, not a secret. The one function every message,
 * path and stored URL goes through.
 */
export function redactCredentials(text: string): string {
  return text.replace(/\b([a-z][a-z0-9+.-]*):\/\/([^/\s?#]*)@/gi, (_match, scheme: string, userinfo: string) => {
    const isSsh = /^(ssh|git\+ssh|ssh\+git)$/i.test(scheme);
    if (isSsh && /^[a-z0-9._-]+$/i.test(userinfo)) return `${scheme}://${userinfo}@`;
    return `${scheme}://`;
  });
}
