/* Every admin page (templates/admin/base_site.html, at the end of the page, so this runs after
   Django's SelectFilter2.js has built its filter boxes on load). SelectFilter2 puts the filter
   box's hint in an aria-label on a bare <span>, an attribute a span without a role may not
   carry; as role="img" the icon keeps Django's words and names the filter input it labels. */
'use strict';
window.addEventListener('load', function() {
    for (const icon of document.querySelectorAll('.selector .help-tooltip[aria-label]:not([role])')) {
        icon.setAttribute('role', 'img');
    }
});
