/**
 * Removes credentials that are part of a URL anywhere in `text`: the whole user part of an
 * http(s) URL (tokens are often passed as the user name), and the password of any other scheme.
 * The one function every message, path and stored URL goes through.
 */
export function redactCredentials(text: string): string {
  return text.replace(/\b([a-z][a-z0-9+.-]*):\/\/([^/\s@]+)@/gi, (_match, scheme: string, userinfo: string) => {
    if (/^https?$/i.test(scheme)) return `${scheme}://`;
    const user = userinfo.split(':')[0] ?? '';
    return userinfo.includes(':') ? `${scheme}://${user}@` : `${scheme}://${userinfo}@`;
  });
}
