import { mountWiring, renderWiring } from '../js/topology.js';

const el = document.querySelector('section.cluster');
const name = new URLSearchParams(location.search).get('fixture');
mountWiring(el);
fetch(name + '.json').then((r) => r.json()).then((w) => {
  renderWiring(el, w);
  document.body.dataset.ready = '1';
});
