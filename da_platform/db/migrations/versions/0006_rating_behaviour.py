"""rating.behaviour_status, rating.behaviour: the behaviour record sent with each rating (docs/quality-control.md#behaviour-record)

Ratings stored before this migration keep NULL in both (not recorded).

Revision ID: 0006
Revises: 0005
"""
import sqlalchemy as sa
from alembic import op

revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('rating', schema=None) as batch_op:
        batch_op.add_column(sa.Column('behaviour_status', sa.Enum(
            'valid', 'missing', 'invalid', 'oversized', 'mismatched', name='behaviour_status',
            native_enum=False, length=32), nullable=True))
        batch_op.add_column(sa.Column('behaviour', sa.JSON(none_as_null=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('rating', schema=None) as batch_op:
        batch_op.drop_column('behaviour')
        batch_op.drop_column('behaviour_status')
