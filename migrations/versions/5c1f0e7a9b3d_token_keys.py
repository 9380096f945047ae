"""token keys: tokens are looked up by their SHA-256, then compared in constant time

Revision ID: 5c1f0e7a9b3d
Revises: 2af8ee7af63e
Create Date: 2026-11-22 13:20:00

A database index compares the looked-up string byte by byte; looking up the
hash instead means a guess's timing says nothing about the real token. The
plain tokens stay (the leader's page shows the links).
"""
import hashlib

from alembic import op
import sqlalchemy as sa


revision = '5c1f0e7a9b3d'
down_revision = '2af8ee7af63e'
branch_labels = None
depends_on = None


def _key(token):
    return hashlib.sha256(token.encode()).hexdigest()


def upgrade():
    with op.batch_alter_table('groups', schema=None) as batch_op:
        batch_op.add_column(sa.Column('token_key', sa.String(length=64), nullable=True))
    with op.batch_alter_table('nights', schema=None) as batch_op:
        batch_op.add_column(sa.Column('edit_key', sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column('view_key', sa.String(length=64), nullable=True))

    conn = op.get_bind()
    groups = sa.table('groups', sa.column('id', sa.Integer), sa.column('token', sa.String),
                      sa.column('token_key', sa.String))
    for gid, token in conn.execute(sa.select(groups.c.id, groups.c.token)).all():
        conn.execute(groups.update().where(groups.c.id == gid).values(token_key=_key(token)))
    nights = sa.table('nights', sa.column('id', sa.Integer), sa.column('edit_token', sa.String),
                      sa.column('view_token', sa.String), sa.column('edit_key', sa.String),
                      sa.column('view_key', sa.String))
    for nid, edit, view in conn.execute(sa.select(nights.c.id, nights.c.edit_token, nights.c.view_token)).all():
        conn.execute(nights.update().where(nights.c.id == nid).values(edit_key=_key(edit), view_key=_key(view)))

    with op.batch_alter_table('groups', schema=None) as batch_op:
        batch_op.alter_column('token_key', existing_type=sa.String(length=64), nullable=False)
        batch_op.create_unique_constraint('uq_groups_token_key', ['token_key'])
    with op.batch_alter_table('nights', schema=None) as batch_op:
        batch_op.alter_column('edit_key', existing_type=sa.String(length=64), nullable=False)
        batch_op.alter_column('view_key', existing_type=sa.String(length=64), nullable=False)
        batch_op.create_unique_constraint('uq_nights_edit_key', ['edit_key'])
        batch_op.create_unique_constraint('uq_nights_view_key', ['view_key'])


def downgrade():
    with op.batch_alter_table('nights', schema=None) as batch_op:
        batch_op.drop_constraint('uq_nights_view_key', type_='unique')
        batch_op.drop_constraint('uq_nights_edit_key', type_='unique')
        batch_op.drop_column('view_key')
        batch_op.drop_column('edit_key')
    with op.batch_alter_table('groups', schema=None) as batch_op:
        batch_op.drop_constraint('uq_groups_token_key', type_='unique')
        batch_op.drop_column('token_key')
