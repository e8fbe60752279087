// Reading request headers the way node's IncomingMessage and the fetch API both hand them over.
export type HeaderBag = Record<string, string | string[] | undefined>;

/** The first value of a header, looked up case-insensitively. */
export function header(headers: HeaderBag, name: string): string | undefined {
  const wanted = name.toLowerCase();
  // Node and fetch hand headers over under lower-case names: the direct read is the usual answer.
  const direct = headers[wanted];
  if (direct !== undefined) return Array.isArray(direct) ? direct[0] : direct;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== wanted) continue;
    return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

/** One cookie's value from the `Cookie` header(s), or undefined. */
export function cookie(headers: HeaderBag, name: string): string | undefined {
  const raw = Object.entries(headers)
    .filter(([key]) => key.toLowerCase() === 'cookie')
    .flatMap(([, value]) => (Array.isArray(value) ? value : value === undefined ? [] : [value]));
  for (const line of raw) {
    for (const pair of line.split(';')) {
      const eq = pair.indexOf('=');
      if (eq < 0 || pair.slice(0, eq).trim() !== name) continue;
      const value = pair.slice(eq + 1).trim();
      try {
        return decodeURIComponent(value);
      } catch {
        return value;
      }
    }
  }
  return undefined;
}
