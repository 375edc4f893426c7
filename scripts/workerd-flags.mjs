// V8 flags for the local workerd (miniflare passes MINIFLARE_WORKERD_V8_FLAGS to it; Cloudflare's
// runtime is unaffected). A small initial old space makes V8 collect early, so the garbage the local
// R2 simulator leaves during a large deploy is freed in time instead of piling up.
export const localWorkerdV8Flags = '--initial-old-space-size=4';
