"""Quality control gets a policy of its own: campaign.settings["qc"], out of the payment policy

Until now the test quality control runs (``qc_method``, ``qc_alpha``) was stored in the payment policy
(``settings["review"]``). It moves to ``settings["qc"]`` (``analysis.qc_policy.QCPolicy``: method,
alpha, scope); the payment policy keeps only what decides payments. Campaigns whose review policy named
no test are left alone (they use the default). The downgrade moves method and alpha back.

Revision ID: 0009
Revises: 0008
"""
import sqlalchemy as sa
from alembic import op

revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None

MOVED = ('qc_method', 'qc_alpha')


def _campaigns():
    return sa.table('campaign', sa.column('id', sa.Integer), sa.column('settings', sa.JSON))


def _rewrite(change) -> None:
    """Apply ``change(settings) -> new settings or None (unchanged)`` to every campaign."""
    campaign = _campaigns()
    bind = op.get_bind()
    for row_id, settings in bind.execute(sa.select(campaign.c.id, campaign.c.settings)).all():
        new = change(dict(settings or {}))
        if new is not None:
            bind.execute(campaign.update().where(campaign.c.id == row_id).values(settings=new))


def _to_qc(settings: dict):
    review = settings.get('review')
    if not isinstance(review, dict) or not any(key in review for key in MOVED):
        return None
    qc = {'method': review.get('qc_method', 'wilcoxon'), 'alpha': review.get('qc_alpha', 0.05), 'scope': 'group'}
    settings['review'] = {k: v for k, v in review.items() if k not in MOVED}
    settings.setdefault('qc', qc)
    return settings


def _to_review(settings: dict):
    qc = settings.pop('qc', None)
    if not isinstance(qc, dict):
        return None
    review = dict(settings.get('review') or {})
    review.update(qc_method=qc.get('method', 'wilcoxon'), qc_alpha=qc.get('alpha', 0.05))
    settings['review'] = review
    return settings


def upgrade() -> None:
    _rewrite(_to_qc)


def downgrade() -> None:
    _rewrite(_to_review)
