import { describe, expect, it } from 'vitest';
import { followEvents } from '../../src/common/event-stream';
import { ApiError } from '../../src/common/received-problem';

/** An answer of `GET /v2/events` as the service sends it, and the Last-Event-ID each request carried. */
function scriptedService(answers: (() => Response)[]) {
  const sent: (string | null)[] = [];
  const open = async (headers: Record<string, string>) => {
    sent.push(headers['last-event-id'] ?? null);
    const answer = answers.shift();
    if (!answer) throw new Error('no more answers scripted');
    return answer();
  };
  return { open, sent };
}

const stream = (text: string) => () => new Response(text, { headers: { 'content-type': 'text/event-stream' } });
const problem = (status: number, detail: string) => () =>
  Response.json({ type: '/problems/x', title: 'Refused', status, detail }, { status, headers: { 'content-type': 'application/problem+json' } });

describe('followEvents', () => {
  it('after a 410 for its position, reports the gap and resumes from the oldest event kept', async () => {
    const service = scriptedService([
      problem(410, 'Events up to 7 are past the retained history.'),
      stream('retry: 1\nid: 8\nevent: site-delete\ndata: {"type":"site-delete","domain":"a.example"}\n\n'),
      stream('id: 9\nevent: site-delete\ndata: {"type":"site-delete","domain":"b.example"}\n\n'),
    ]);
    const gaps: string[] = [];
    const received: (string | undefined)[] = [];
    for await (const message of followEvents(service.open, { lastEventId: '3', onGap: (reason) => gaps.push(reason) })) {
      received.push(message.id);
      if (received.length === 2) break;
    }
    expect(gaps).toEqual(['Events up to 7 are past the retained history.']);
    expect(received).toEqual(['8', '9']);
    expect(service.sent).toEqual(['3', '0', '8']);
  });

  it('ends with the ApiError of a refusal that asking again cannot change', async () => {
    const service = scriptedService([problem(403, 'The token lacks the global_read scope.')]);
    const following = followEvents(service.open).next();
    await expect(following).rejects.toBeInstanceOf(ApiError);
    await expect(following).rejects.toMatchObject({ status: 403, message: 'The token lacks the global_read scope.' });
  });
});
