export default {
  /** The smallest answer a Worker can give: the runtime's own cost per request. */
  fetch() {
    return new Response('hello world');
  },
};
