"""assignment.current_images_served, rating.images_served: the server's own record of the images it served

Which images of the current slot the assignment was served (bits), and for each rating whether every image
its slot shows had been served before it. Ratings stored before this migration keep NULL (not recorded).

Revision ID: 0012
Revises: 0011
"""
import sqlalchemy as sa
from alembic import op

revision = '0012'
down_revision = '0011'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('assignment', schema=None) as batch_op:
        batch_op.add_column(sa.Column('current_images_served', sa.Integer(), server_default='0', nullable=False))
    with op.batch_alter_table('rating', schema=None) as batch_op:
        batch_op.add_column(sa.Column('images_served', sa.Boolean(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('rating', schema=None) as batch_op:
        batch_op.drop_column('images_served')
    with op.batch_alter_table('assignment', schema=None) as batch_op:
        batch_op.drop_column('current_images_served')
