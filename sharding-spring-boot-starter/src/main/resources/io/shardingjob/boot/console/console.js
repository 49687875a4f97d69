// The sharding console's only script: the confirmation dialog of the operation buttons, and the result of an operation
// that the server or a filter in front of it refused. The pages themselves are rendered on the server; htmx refreshes
// their live parts and posts the operations.
(function () {
    'use strict';

    function field(form, name) {
        return form.elements.namedItem(name);
    }

    function showResult(status, message) {
        var result = document.getElementById('result');
        if (result) {
            result.setAttribute('data-status', status);
            result.textContent = message;
        }
    }

    // A button with data-action opens the dialog, which carries the operation in its form's hidden fields.
    document.addEventListener('click', function (event) {
        var button = event.target.closest ? event.target.closest('button[data-action]') : null;
        if (button) {
            var dialog = document.getElementById('confirm');
            if (!dialog) {
                return;
            }
            var form = dialog.querySelector('form');
            var action = button.getAttribute('data-action');
            // namedItem, as elements.item is the collection's item(index) method.
            field(form, 'job').value = button.getAttribute('data-job') || '';
            field(form, 'action').value = action;
            field(form, 'item').value = button.getAttribute('data-item') || '';
            field(form, 'instance').value = button.getAttribute('data-instance') || '';
            field(form, 'fireTime').value = button.getAttribute('data-rerun-fire') || '';
            document.getElementById('job-parameter-field').hidden = action !== 'trigger';
            document.getElementById('job-parameter').value = '';
            document.getElementById('confirm-text').textContent =
                button.getAttribute('data-confirm') || (action + ' ' + field(form, 'job').value + '?');
            dialog.showModal();
            return;
        }
        if (event.target.id === 'confirm-no') {
            document.getElementById('confirm').close();
        }
    });

    // The form posts to the operations of the job its button named.
    document.addEventListener('htmx:configRequest', function (event) {
        var form = event.detail.elt;
        if (form && form.id === 'confirm-form') {
            event.detail.path = form.getAttribute('data-base') + '/jobs/'
                + encodeURIComponent(field(form, 'job').value) + '/operations';
        }
    });

    // The dialog closes as its form is sent; the answer replaces #result.
    document.addEventListener('htmx:beforeRequest', function (event) {
        var dialog = document.getElementById('confirm');
        if (dialog && event.detail.elt && event.detail.elt.id === 'confirm-form' && dialog.open) {
            dialog.close();
        }
    });

    // htmx leaves error answers unswapped. The console's own (a refusal, a bad item) carry data-status and replace
    // #result as a success does; anything else (a filter's 403, a proxy's 502) is summed up in #result.
    document.addEventListener('htmx:beforeSwap', function (event) {
        var xhr = event.detail.xhr;
        var target = event.detail.target;
        if (!target || target.id !== 'result' || xhr.status < 400) {
            return;
        }
        if (/data-status=/.test(xhr.responseText || '')) {
            event.detail.shouldSwap = true;
            event.detail.isError = false;
        } else {
            event.detail.shouldSwap = false;
            showResult(xhr.status === 401 || xhr.status === 403 ? 'refused' : 'error',
                'HTTP ' + xhr.status + (xhr.status === 403 ? ': refused (signed out, or the CSRF token expired? reload the page)' : ''));
        }
    });

    document.addEventListener('htmx:sendError', function (event) {
        if (event.detail.elt && event.detail.elt.id === 'confirm-form') {
            showResult('error', 'the application did not answer');
        }
    });
})();
