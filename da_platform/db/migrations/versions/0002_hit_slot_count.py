"""hit.slot_count: the number of slots of each HIT, stored for the worker pages

Revision ID: 0002
Revises: 0001
"""
import sqlalchemy as sa
from alembic import op

revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('hit', schema=None) as batch_op:
        batch_op.add_column(sa.Column('slot_count', sa.Integer(), nullable=True))
    op.execute("UPDATE hit SET slot_count = (SELECT count(*) FROM slot WHERE slot.hit_id = hit.id)")
    with op.batch_alter_table('hit', schema=None) as batch_op:
        batch_op.alter_column('slot_count', existing_type=sa.Integer(), nullable=False)


def downgrade() -> None:
    with op.batch_alter_table('hit', schema=None) as batch_op:
        batch_op.drop_column('slot_count')
