"""``{% share_panel brief %}``: the Share card of the owner's brief page (make, copy, revoke)."""

from django import template

from sharing.selectors import brief_share_live
from sharing.views import share_url

register = template.Library()


@register.inclusion_tag("sharing/_share_panel.html", takes_context=True)
def share_panel(context, brief) -> dict:
    request = context["request"]
    share = brief_share_live(owner=request.user, brief_id=brief.pk)
    return {
        "brief": brief,
        "share": share,
        "share_url": share_url(request, share.secret) if share else "",
        "csrf_token": context.get("csrf_token"),
    }
