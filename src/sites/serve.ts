/** Answers a request whose Host is not an API host: the hosted site's face of the Worker. */
export async function serveSite(request: Request, domain: string): Promise<Response> {
  return new Response(`No site is hosted at ${domain}.\n`, {
    status: 404,
    headers: { 'content-type': 'text/plain; charset=utf-8' },
  });
}
