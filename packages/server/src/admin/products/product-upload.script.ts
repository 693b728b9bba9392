import type { FastifyInstance } from 'fastify';

/**
 * The product page's one script, served from this origin (its CSP allows 'self' scripts only):
 * it sends the upload form itself to show the upload's progress, then follows the answer. Without
 * it the form posts as any form does.
 */
const SCRIPT = `'use strict';
(function () {
  var form = document.getElementById('upload-form');
  if (!form || !window.FormData || !window.XMLHttpRequest || !window.DOMParser) return;
  var input = form.querySelector('input[type=file]');
  var bar = document.getElementById('upload-progress');
  var status = document.getElementById('upload-status');
  var button = form.querySelector('button');
  function done(message) {
    status.textContent = message;
    bar.hidden = true;
    button.disabled = false;
  }
  form.addEventListener('submit', function (event) {
    if (!input.files || input.files.length === 0) return;
    event.preventDefault();
    var xhr = new XMLHttpRequest();
    xhr.open('POST', form.action);
    bar.value = 0;
    bar.hidden = false;
    button.disabled = true;
    status.textContent = 'Uploading: 0%';
    xhr.upload.addEventListener('progress', function (e) {
      if (!e.lengthComputable) return;
      var percent = Math.round((e.loaded / e.total) * 100);
      bar.value = percent;
      status.textContent = 'Uploading: ' + percent + '%';
    });
    xhr.addEventListener('load', function () {
      if (xhr.status < 400) {
        bar.value = 100;
        status.textContent = 'Uploaded.';
        window.location.assign(xhr.responseURL);
        return;
      }
      var page = new DOMParser().parseFromString(xhr.responseText, 'text/html');
      var alert = page.querySelector('#upload-form [role=alert]') || page.querySelector('main [role=alert]');
      done(alert ? alert.textContent.trim() : 'The upload failed (' + xhr.status + '). Try again.');
    });
    xhr.addEventListener('error', function () {
      done('The upload failed: the connection was lost. Try again.');
    });
    xhr.send(new FormData(form));
  });
})();
`;

export function registerUploadScript(app: FastifyInstance): void {
  app.get('/assets/product-images.js', async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(SCRIPT),
  );
}
