// The header through which the custom server tells a page rendering on the server where its own API is
// (src/server/http/page-origin.ts sets it on every page request; a client's value is overwritten).
export const API_ORIGIN_HEADER = 'x-tether-api-origin';
