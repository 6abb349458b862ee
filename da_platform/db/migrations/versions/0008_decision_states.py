"""review_decision.action / .status as typed states (DecisionAction, DecisionStatus)

The columns were free strings (VARCHAR 30 / 20); they become the enums' non-native form (VARCHAR 32
holding the member's value, checked by SQLAlchemy on write). The stored values do not change: every
value the platform ever wrote is a member. A value that is not (written by hand) stops the upgrade
with its row id, before anything is altered.

Revision ID: 0008
Revises: 0007
"""
import sqlalchemy as sa
from alembic import op

revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None

ACTIONS = ('approve', 'reject', 'bonus', 'block', 'exclude', 'use_data', 'exclude_data')
STATUSES = ('pending', 'sent', 'done', 'failed')


def _refuse_unknown(column: str, allowed: tuple[str, ...]) -> None:
    table = sa.table('review_decision', sa.column('id', sa.Integer), sa.column(column, sa.String))
    row = op.get_bind().execute(
        sa.select(table.c.id, table.c[column]).where(table.c[column].not_in(allowed)).limit(1)).first()
    if row is not None:
        raise RuntimeError(f"review_decision id {row[0]}: {column} {row[1]!r} is not one of {', '.join(allowed)}; "
                           "fix the row, then upgrade again")


def upgrade() -> None:
    _refuse_unknown('action', ACTIONS)
    _refuse_unknown('status', STATUSES)
    with op.batch_alter_table('review_decision', schema=None) as batch_op:
        batch_op.alter_column('action', existing_type=sa.String(length=30), nullable=False,
                              type_=sa.Enum(*ACTIONS, name='decision_action', native_enum=False, length=32))
        batch_op.alter_column('status', existing_type=sa.String(length=20), nullable=False,
                              type_=sa.Enum(*STATUSES, name='decision_status', native_enum=False, length=32))


def downgrade() -> None:
    with op.batch_alter_table('review_decision', schema=None) as batch_op:
        batch_op.alter_column('status', existing_type=sa.String(length=32), nullable=False,
                              type_=sa.String(length=20))
        batch_op.alter_column('action', existing_type=sa.String(length=32), nullable=False,
                              type_=sa.String(length=30))
